# policyctl in a container: `docker build -t policyctl .`, then
#   docker run --rm -v "$PWD:/work:ro" -w /work policyctl lint -f manifests/
# Two stages: the build stage has the Rust toolchain and the sources; the runtime image has the
# binary and nothing else besides the C runtime it links against (distroless "cc": glibc, libgcc),
# and runs as a non-root user. The Rust image is the minimum version in Cargo.toml (rust-version).
FROM docker.io/library/rust:1.89-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY tests ./tests
COPY completions ./completions
# The CRD schemas the loader embeds (generated data, see schemas/generate.py).
COPY schemas ./schemas
# The release profile keeps line tables for profiling; the image needs none of that.
ENV CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true
RUN cargo build --release --locked --bin policyctl

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/policyctl /usr/local/bin/policyctl
# distroless's "nonroot" user, by number so that Kubernetes' runAsNonRoot can check it.
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/policyctl"]
CMD ["--help"]
