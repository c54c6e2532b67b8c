//! OIDCPolicy's spec as the model holds it (`spec.provider`, `spec.auth`); what its controller
//! creates from it is built by `crate::load::oidc`.

use serde_json::Value;
use std::collections::BTreeMap;

/// What an OIDCPolicy holds (`spec.provider`, `spec.auth`), empty strings for unset fields.
#[derive(Clone, Debug, Default)]
pub struct OidcSpec {
    pub jwks_url: String,
    pub issuer_url: String,
    pub client_id: String,
    pub authorization_endpoint: String,
    pub redirect_uri: String,
    pub token_endpoint: String,
    /// `auth.claims` (claim → expected value), sorted by claim.
    pub claims: BTreeMap<String, String>,
    /// `auth.tokenSource` as written (Authorino `Credentials`).
    pub token_source: Option<Value>,
}
