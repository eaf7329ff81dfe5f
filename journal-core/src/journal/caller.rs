//! Who is asking: the [`Caller`] capability, and the only ways to get one (a token, or
//! the database itself). Every operation that acts for someone takes one, so the
//! ownership and visibility rules can rely on it.

use std::net::IpAddr;

use tracing::instrument;

use super::Journal;
use crate::auth::TokenClaims;
use crate::domain::{AccessTokenId, Role, UserId};
use crate::error::{Error, Result, TokenRejection};

/// Who is asking: the authenticated user, with the token they presented (none for a
/// trusted local caller such as the CLI on its own database).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub(super) user_id: UserId,
    pub(super) role: Role,
    pub(super) token: Option<TokenClaims>,
    pub(super) access_token: Option<AccessTokenId>,
    pub(super) client: ClientInfo,
}

impl Caller {
    /// The caller's user id.
    pub fn user_id(&self) -> &UserId {
        &self.user_id
    }

    /// The caller's role.
    pub fn role(&self) -> Role {
        self.role
    }

    pub(super) fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }

    /// The kind of credential the caller's changes are recorded as made with.
    pub fn via(&self) -> crate::model::EditedVia {
        use crate::model::EditedVia;
        match (&self.access_token, &self.token) {
            (Some(_), _) => EditedVia::Token,
            (None, Some(_)) => EditedVia::Login,
            (None, None) => EditedVia::Local,
        }
    }

    /// The personal access token the caller authenticated with, if any.
    pub fn access_token(&self) -> Option<&AccessTokenId> {
        self.access_token.as_ref()
    }

    /// Refuses what a personal access token may not do (`what`): a token kept by a
    /// script must not be able to take the account over, so changing the password,
    /// deleting the account, and managing tokens and the second factor need a login.
    pub(super) fn needs_login(&self, what: &str) -> Result<()> {
        match self.access_token {
            Some(_) => Err(Error::Forbidden(format!(
                "a personal access token cannot {what}; log in with your password to do it"
            ))),
            None => Ok(()),
        }
    }
}

/// Where a request came from, as the front end knows it: the client's network address,
/// or nothing (the CLI on its own database, a program linking the library). Front ends
/// attach it to a [`Caller`] with [`Caller::with_client`], and give it to
/// [`Journal::login_from`]; the security log shows it to the account's owner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClientInfo {
    address: Option<IpAddr>,
}

impl ClientInfo {
    /// A request from this address (the TCP peer, or what a trusted proxy said).
    pub fn from_address(address: IpAddr) -> ClientInfo {
        ClientInfo {
            address: Some(address),
        }
    }

    /// A request from nowhere in particular: local use.
    pub fn local() -> ClientInfo {
        ClientInfo::default()
    }

    /// The client's address, if known.
    pub fn address(&self) -> Option<IpAddr> {
        self.address
    }
}

impl Caller {
    /// The caller, acting from `client`: the security log records the address of
    /// what this caller does to the account.
    pub fn with_client(mut self, client: ClientInfo) -> Caller {
        self.client = client;
        self
    }

    /// Where the caller's request came from ([`ClientInfo::local`] unless set).
    pub fn client(&self) -> &ClientInfo {
        &self.client
    }
}

impl Journal {
    /// Verifies a token and returns the caller it stands for. Refuses tokens that are
    /// malformed, signed with another key or algorithm, expired, revoked by logout,
    /// issued before the last password change, or whose user is gone.
    #[instrument(level = "debug", skip_all)]
    pub async fn authenticate(&self, token: &str) -> Result<Caller> {
        if token.starts_with(crate::secrets::ACCESS_TOKEN_PREFIX) {
            return self.authenticate_access_token(token).await;
        }
        let claims = self
            .inner
            .tokens
            .verify(token)
            .map_err(Error::Unauthenticated)?;
        let state = self
            .store_ref()
            .auth_state(&claims.user_id, &claims.token_id)
            .await?
            .ok_or(Error::Unauthenticated(TokenRejection::UnknownUser))?;
        if state.revoked {
            return Err(Error::Unauthenticated(TokenRejection::Revoked));
        }
        if claims.issued_at < state.password_changed_at {
            return Err(Error::Unauthenticated(TokenRejection::Superseded));
        }
        if state.disabled {
            return Err(Error::Unauthenticated(TokenRejection::Disabled));
        }
        crate::budget::signed_in();
        Ok(Caller {
            user_id: claims.user_id,
            role: state.role,
            token: Some(claims),
            access_token: None,
            client: ClientInfo::local(),
        })
    }

    /// A caller for a user without a token. Only for front ends that already hold the
    /// database itself (the CLI on its own file): having the file is having the data.
    #[instrument(level = "debug", skip_all)]
    pub async fn local_caller(&self, user: &UserId) -> Result<Caller> {
        let record = self
            .store_ref()
            .user_by_id(user)
            .await?
            .ok_or(Error::NotFound { kind: "user" })?;
        Ok(Caller {
            user_id: record.profile.id,
            role: record.profile.role,
            token: None,
            access_token: None,
            client: ClientInfo::local(),
        })
    }
}
