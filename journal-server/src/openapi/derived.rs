//! The schemas derived from the wire types themselves (utoipa's `ToSchema`, behind
//! journal-core's `utoipa` feature): a field added to one of these types is in the
//! document with no edit here.

use journal_core::api::{
    ErrorBody, ImportEntriesResponse, LoginResponse, MessageResponse, RegisterResponse,
};
use journal_core::{
    AccessToken, Entry, Invite, InviteSummary, NewAccessToken, RecoveryCodes, TotpSetup,
};
use serde_json::Value;
use utoipa::OpenApi as _;

/// The types, and every type they name.
#[derive(utoipa::OpenApi)]
#[openapi(components(schemas(
    ErrorBody,
    MessageResponse,
    RegisterResponse,
    LoginResponse,
    Entry,
    ImportEntriesResponse,
    AccessToken,
    NewAccessToken,
    TotpSetup,
    RecoveryCodes,
    Invite,
    InviteSummary
)))]
struct Derived;

/// Adds the derived schemas to the document's components. Each is a body the server
/// sends, with these properties and no other: closed (`additionalProperties: false`),
/// so that a property the document does not name is a failure of the server's, not a
/// liberty.
pub(super) fn add(doc: &mut Value) {
    let schemas = Derived::openapi()
        .components
        .map(|components| components.schemas)
        .unwrap_or_default();
    for (name, schema) in schemas {
        let Ok(mut schema) = serde_json::to_value(schema) else {
            continue;
        };
        if let Some(object) = schema.as_object_mut() {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        doc["components"]["schemas"][name] = schema;
    }
}
