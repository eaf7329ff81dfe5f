//! The schemas derived from the wire types themselves (utoipa's `ToSchema`, behind
//! journal-core's `utoipa` feature): a field added to one of these types is in the
//! document with no edit here. The request bodies' field rules are stated next to the
//! types, in `journal_core::api::schema`.

use journal_core::api::{
    AdminUpdateUserRequest, ChangePasswordRequest, CreateAccessTokenRequest, CreateEntryRequest,
    CreateInviteRequest, DeleteAccountRequest, DisableTotpRequest, EnableTotpRequest, ErrorBody,
    ImportEntriesRequest, ImportEntriesResponse, ImportRevisionRequest, LoginRequest,
    LoginResponse, MessageResponse, RegisterRequest, RegisterResponse, RenewRecoveryCodesRequest,
    UpdateEntryRequest, UpdateProfileRequest,
};
use journal_core::{
    AccessToken, Entry, Invite, InviteSummary, NewAccessToken, PublicProfile, RecoveryCodes,
    Revision, SecondFactorState, TotpSetup,
};
use serde_json::{Value, json};
use utoipa::OpenApi as _;

/// The types, and every type they name.
#[derive(utoipa::OpenApi)]
#[openapi(components(schemas(
    ErrorBody,
    MessageResponse,
    RegisterResponse,
    LoginResponse,
    Entry,
    Revision,
    ImportEntriesResponse,
    AccessToken,
    NewAccessToken,
    TotpSetup,
    RecoveryCodes,
    SecondFactorState,
    Invite,
    InviteSummary,
    PublicProfile
)))]
struct Derived;

/// The request bodies. Open: a property they do not name is ignored by the server.
#[derive(utoipa::OpenApi)]
#[openapi(components(schemas(
    RegisterRequest,
    LoginRequest,
    CreateAccessTokenRequest,
    EnableTotpRequest,
    DeleteAccountRequest,
    DisableTotpRequest,
    RenewRecoveryCodesRequest,
    CreateInviteRequest,
    AdminUpdateUserRequest,
    UpdateProfileRequest,
    ChangePasswordRequest,
    CreateEntryRequest,
    ImportEntriesRequest,
    ImportRevisionRequest,
    UpdateEntryRequest
)))]
struct Requests;

/// The bodies that change only what they name, and must name something: the fields of
/// which one at least must be there, not null (the password and code that confirm a
/// profile change do not count).
const AT_LEAST_ONE: [(&str, &[&str]); 2] = [
    (
        "UpdateProfileRequest",
        &["fullName", "nickname", "email", "profilePic", "isPrivate"],
    ),
    (
        "UpdateEntryRequest",
        &["title", "content", "isPublic", "tags", "starred", "date"],
    ),
];

/// Adds the derived schemas to the document's components. Each is a body the server
/// sends, with these properties and no other: closed (`additionalProperties: false`),
/// so that a property the document does not name is a failure of the server's, not a
/// liberty.
pub(super) fn add(doc: &mut Value) {
    for (name, schema) in schemas(Derived::openapi()) {
        let mut schema = schema;
        if let Some(object) = schema.as_object_mut() {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        doc["components"]["schemas"][name] = schema;
    }
    for (name, schema) in schemas(Requests::openapi()) {
        doc["components"]["schemas"][name] = schema;
    }
    for (name, fields) in AT_LEAST_ONE {
        let schema = &mut doc["components"]["schemas"][name];
        let any_of: Vec<Value> = fields
            .iter()
            .map(|field| {
                let kind = not_null_type(&schema["properties"][*field]);
                json!({ "required": [field], "properties": { *field: { "type": kind } } })
            })
            .collect();
        schema["anyOf"] = Value::Array(any_of);
    }
}

/// The schemas of a derived document, as JSON.
fn schemas(api: utoipa::openapi::OpenApi) -> Vec<(String, Value)> {
    api.components
        .map(|components| components.schemas)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, schema)| Some((name, serde_json::to_value(schema).ok()?)))
        .collect()
}

/// The type a property has when it is not null: `string` of `["string", "null"]` or of
/// `anyOf: [{type: string, …}, {type: null}]`.
fn not_null_type(property: &Value) -> Value {
    let types = match property.get("anyOf") {
        Some(Value::Array(options)) => options.iter().map(|o| o["type"].clone()).collect(),
        _ => match &property["type"] {
            Value::Array(types) => types.clone(),
            other => vec![other.clone()],
        },
    };
    types
        .into_iter()
        .find(|t| t != "null")
        .unwrap_or(Value::Null)
}
