//! gRPC: the status a gRPC client sees when the data plane refuses its request.
//!
//! The wasm shim refuses with `send_http_response` (a local reply) and Envoy's router answers 404
//! when no route matches; for a gRPC request (`content-type: application/grpc…`) Envoy turns a
//! local reply into a trailers-only response whose `grpc-status` is mapped from the HTTP status
//! (Envoy `source/common/grpc/status.cc`, `Utility::httpToGrpcStatus`, which follows gRPC's
//! `doc/http-grpc-status-mapping.md`; `source/common/http/utility.cc`, `sendLocalReply`).

/// Envoy's `httpToGrpcStatus`: the gRPC status name and code of an HTTP status.
pub(super) fn from_http(status: u16) -> &'static str {
    match status {
        400 => "INTERNAL (13)",
        401 => "UNAUTHENTICATED (16)",
        403 => "PERMISSION_DENIED (7)",
        404 => "UNIMPLEMENTED (12)",
        429 | 502 | 503 | 504 => "UNAVAILABLE (14)",
        _ => "UNKNOWN (2)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envoy_http_to_grpc() {
        // Envoy source/common/grpc/status.cc `httpToGrpcStatus`.
        for (http, grpc) in [
            (400, "INTERNAL (13)"),
            (401, "UNAUTHENTICATED (16)"),
            (403, "PERMISSION_DENIED (7)"),
            (404, "UNIMPLEMENTED (12)"),
            (429, "UNAVAILABLE (14)"),
            (503, "UNAVAILABLE (14)"),
            (500, "UNKNOWN (2)"),
        ] {
            assert_eq!(from_http(http), grpc, "{http}");
        }
    }
}
