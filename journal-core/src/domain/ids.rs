//! Identifiers: users, entries, revisions and access tokens, each its own type.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

pub use crate::error::UnknownId;

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident, $kind:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Uuid);

        impl $name {
            /// A new identifier (UUIDv7: sorts by creation time).
            pub fn generate() -> Self {
                $name(Uuid::now_v7())
            }

            /// The underlying UUID.
            pub fn as_uuid(&self) -> &Uuid {
                &self.0
            }

            /// Wraps a UUID read back from a store.
            pub fn from_uuid(uuid: Uuid) -> Self {
                $name(uuid)
            }
        }

        impl FromStr for $name {
            type Err = UnknownId;
            fn from_str(s: &str) -> Result<Self, UnknownId> {
                // Only the canonical form (lower-case, hyphenated), so one entry has
                // exactly one URL.
                if s.len() != 36 || s.bytes().any(|b| b.is_ascii_uppercase()) {
                    return Err(UnknownId { kind: $kind });
                }
                Uuid::try_parse(s)
                    .map($name)
                    .map_err(|_| UnknownId { kind: $kind })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // Through a stack buffer, not `Display`: a list writes two per entry.
                s.serialize_str(self.0.hyphenated().encode_lower(&mut Uuid::encode_buffer()))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

id_type!(
    /// Identifies a user.
    UserId,
    "user"
);

id_type!(
    /// Identifies a journal entry.
    EntryId,
    "entry"
);

id_type!(
    /// Identifies a personal access token.
    AccessTokenId,
    "token"
);

id_type!(
    /// Identifies one revision of an entry, on any replica: the `ETag` of the entry in
    /// that state. Unlike the revision's number, two replicas never give one id to two
    /// different states.
    RevisionId,
    "revision"
);

id_type!(
    /// Identifies an attached file (a photo, a recording, a document).
    AttachmentId,
    "attachment"
);

impl AttachmentId {
    /// An id made from what names a file where it came from, the same every time:
    /// importing the same file again finds it under the same id, and the entry's
    /// `attachment:ID` link reads the same. `parts` are hashed one after the other, so
    /// the caller keeps them apart (fixed lengths, or a separator); ids already made
    /// this way are in people's journals, so the scheme never changes.
    pub fn derived(parts: &[&[u8]]) -> AttachmentId {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for part in parts {
            hash.update(part);
        }
        let digest = hash.finalize();
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        AttachmentId(uuid::Builder::from_random_bytes(bytes).into_uuid())
    }
}

impl Default for RevisionId {
    /// The nil id: an entry read from a document written before revisions existed.
    fn default() -> Self {
        RevisionId(Uuid::nil())
    }
}
