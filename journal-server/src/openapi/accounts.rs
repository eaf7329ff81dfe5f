//! What the account rules of a public server (see `crate::accounts`) change in the
//! users' operations: registration by invitation, the last administrator, disabled
//! accounts and second-factor codes at login. The operations of tokens, the second
//! factor and administration are documented by their route modules (`crate::api`).

use serde_json::{Value, json};

use super::error_when;

/// Adds the answers the account rules give to the users' operations.
pub(super) fn add(doc: &mut Value) {
    doc["paths"]["/api/user/register"]["post"]["responses"]["403"] = error_when(
        "Registration is closed, or needs an invitation that is missing, used, expired or withdrawn (whatever the e-mail)",
    );
    doc["paths"]["/api/user/profile"]["delete"]["responses"]["409"] =
        error_when("The caller is the last administrator who can sign in");
    doc["paths"]["/api/user/login"]["post"]["responses"]["403"] =
        error_when("The password was right but the account is disabled");
    doc["paths"]["/api/user/login"]["post"]["responses"]["401"]["description"] = json!(
        "Unknown e-mail or wrong password, answered alike (whatever the code); or a second-factor code is missing or wrong"
    );
}
