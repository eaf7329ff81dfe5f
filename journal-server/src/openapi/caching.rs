//! How the public feed is cached, in the document: `ETag` and `Cache-Control` on its
//! 200, `If-None-Match` and the 304 it can bring (see `handlers::public_entries`).

use serde_json::{Value, json};

/// `ETag` and `Cache-Control` of an answer revalidated on every use.
pub(crate) fn revalidation_headers() -> Value {
    json!({
        "ETag": { "description": "A strong validator of this answer (its body, X-Total-Count and Link): it changes whenever any of them does.",
            "schema": { "type": "string" } },
        "Cache-Control": { "description": "no-cache: a cache may keep the answer but must revalidate it (If-None-Match) before each use, so an entry or profile made private leaves every copy at once. no-store when the request has an Authorization header.",
            "schema": { "type": "string", "enum": ["no-cache", "no-store"] } }
    })
}

/// Adds the validator to `publicEntries`.
pub(super) fn add(doc: &mut Value) {
    let Some(operation) = doc.pointer_mut("/paths/~1api~1public~1journal-entries/get") else {
        return;
    };
    let headers = revalidation_headers();
    if let Some(ok) = operation
        .pointer_mut("/responses/200/headers")
        .and_then(Value::as_object_mut)
    {
        ok.extend(
            headers
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
    }
    if let Some(responses) = operation["responses"].as_object_mut() {
        responses.insert(
            "304".into(),
            json!({
                "description": "Not Modified: If-None-Match names this page's ETag (or is *); no body",
                "headers": headers
            }),
        );
    }
    if let Some(parameters) = operation["parameters"].as_array_mut() {
        parameters.push(json!({
            "name": "If-None-Match", "in": "header", "required": false,
            "description": "ETags of copies the client holds (RFC 9110), or *: 304 when one is this page's.",
            "schema": { "type": "string" }
        }));
    }
}
