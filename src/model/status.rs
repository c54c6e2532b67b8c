//! The `status` of Gateway API objects, kept by the model as the input wrote it: every field
//! optional, nothing defaulted or checked. Only the readiness gates of `status --respect-status`
//! (`docs/semantics/paths.md`, "Readiness") and the DNSRecord endpoints read it.
//!
//! `RawParentRef` is here too: a route's `status.parents[].parentRef` has the shape of its
//! `spec.parentRefs[]`, which `load` reads with the same type.

use super::span::{Sp, int};
use serde::Deserialize;

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub status: Option<String>,
    pub reason: Option<String>,
    pub message: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct GatewayStatus {
    pub listeners: Option<Vec<ListenerStatus>>,
    pub conditions: Option<Vec<Condition>>,
    pub addresses: Option<Vec<GatewayStatusAddress>>,
}

/// `status.addresses[]`; `type` defaults to `IPAddress` (Gateway API v1.2.1 CRD).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct GatewayStatusAddress {
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub value: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ListenerStatus {
    pub name: Option<String>,
    pub conditions: Option<Vec<Condition>>,
    pub attached_routes: Option<i64>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct RawParentRef {
    pub group: Option<Sp<String>>,
    pub kind: Option<Sp<String>>,
    pub namespace: Option<Sp<String>>,
    pub name: Option<Sp<String>>,
    pub section_name: Option<Sp<String>>,
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub port: Option<Sp<i64>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct RouteStatus {
    pub parents: Option<Vec<RouteParentStatus>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct RouteParentStatus {
    pub parent_ref: Option<RawParentRef>,
    pub controller_name: Option<String>,
    pub conditions: Option<Vec<Condition>>,
}
