# policyctl in a container: `docker build -t policyctl .`, then
#   docker run --rm -v "$PWD:/work:ro" -w /work policyctl lint -f manifests/
# Two stages: the build stage has the Rust toolchain and the sources; the runtime image has the
# binary and nothing else besides the C runtime it links against (distroless "cc": glibc, libgcc),
# and runs as a non-root user. The Rust image is the minimum version in Cargo.toml (rust-version).
# Both base images are pinned by digest (the multi-platform index of the tag in the comment), so a
# rebuild starts from the same bytes; to move to a newer image, read its digest with
# `docker buildx imagetools inspect IMAGE:TAG` and change both here.
FROM docker.io/library/rust:1.89-slim-bookworm@sha256:d7fc7de78bb8c1469933aeecbf801314d30d7d6e9f0578bba4cfa285bfa37fe6 AS build
WORKDIR /src
# The release profile keeps line tables for profiling; the image needs none of that.
ENV CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true
# Dependencies first, in a layer of their own: it is rebuilt only when Cargo.toml or Cargo.lock
# change, not on every change to the sources. Cargo.toml names the test, example and bench targets'
# files, which must exist for it to be read: empty stand-ins (the image builds only the binary).
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src tests/synth tests/benches \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs tests/tests.rs tests/synth/synth.rs tests/benches/parse_only.rs tests/benches/pipeline.rs \
    && cargo build --release --locked --bin policyctl \
    && rm -rf src target/release/.fingerprint/policyctl-* target/release/deps/policyctl-* target/release/deps/libpolicyctl-*
COPY src ./src
# The CRD schemas the loader embeds (generated data, see schemas/generate.py).
COPY schemas ./schemas
RUN cargo build --release --locked --bin policyctl

FROM gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f
COPY --from=build /src/target/release/policyctl /usr/local/bin/policyctl
# distroless's "nonroot" user, by number so that Kubernetes' runAsNonRoot can check it.
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/policyctl"]
CMD ["--help"]
