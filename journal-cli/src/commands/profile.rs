//! `journal profile`: show the caller's profile, or change it.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use clap::{Args, Subcommand};
use journal_core::api::UpdateProfileRequest;

use super::{Ctx, confirm};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{self, print, print_json};

/// `journal profile`: show, or change with `set`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal profile\n  journal profile set --nickname ada --picture me.png"
)]
pub struct Profile {
    /// What to do.
    #[command(subcommand)]
    pub action: Option<ProfileAction>,
}

/// `journal profile …`
#[derive(Debug, Subcommand)]
pub enum ProfileAction {
    /// Change fields of your profile.
    #[command(
        after_help = "Example:\n  journal profile set --full-name \"Ada King\" --private --picture me.png"
    )]
    Set {
        /// New full name.
        #[arg(long)]
        full_name: Option<String>,
        /// New nickname.
        #[arg(long)]
        nickname: Option<String>,
        /// New e-mail address.
        #[arg(long)]
        email: Option<String>,
        /// Hide your entries from everyone else.
        #[arg(long, conflicts_with = "not_private")]
        private: bool,
        /// Show your public entries to others.
        #[arg(long)]
        not_private: bool,
        /// A PNG, JPEG, GIF or WebP picture (type read from the content).
        #[arg(long, value_name = "FILE", conflicts_with = "remove_picture")]
        picture: Option<PathBuf>,
        /// Remove the picture.
        #[arg(long)]
        remove_picture: bool,
    },
}

impl Profile {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        b.connect().await?;
        match self.action {
            None => {
                let p = b.profile().await?;
                show_profile(ctx, &p);
                Ok(())
            }
            Some(ProfileAction::Set {
                full_name,
                nickname,
                email,
                private,
                not_private,
                picture,
                remove_picture,
            }) => {
                let profile_pic = match picture {
                    Some(path) => Some(data_uri(&path)?),
                    None if remove_picture => Some(String::new()),
                    None => None,
                };
                if full_name.is_none()
                    && nickname.is_none()
                    && email.is_none()
                    && profile_pic.is_none()
                    && !private
                    && !not_private
                {
                    return Err(CliError::Usage(
                            "nothing to change; pass at least one of --full-name, --nickname, --email, --private or --not-private, --picture or --remove-picture".into(),
                        ));
                }
                let request = UpdateProfileRequest {
                    full_name,
                    nickname,
                    email,
                    profile_pic,
                    is_private: match (private, not_private) {
                        (true, _) => Some(true),
                        (_, true) => Some(false),
                        _ => None,
                    },
                    ..Default::default()
                };
                // A new e-mail address is a new login: the server may want the
                // password for it.
                let p = confirm::confirmed(Default::default(), |proof| {
                    let request = UpdateProfileRequest {
                        password: proof.password,
                        totp: proof.totp,
                        ..request.clone()
                    };
                    async move { b.update_profile(&request).await }
                })
                .await?;
                ctx.note("profile updated");
                show_profile(ctx, &p);
                Ok(())
            }
        }
    }
}

fn show_profile(ctx: &Ctx, p: &journal_core::Profile) {
    if ctx.json {
        print_json(p);
    } else {
        print(&output::profile_details(p));
    }
}

/// A picture file as a data URI, its type read from its content.
fn data_uri(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::other(format_args!("cannot read {}", path.display()), e))?;
    let kind = infer::get(&bytes)
        .map(|k| k.mime_type())
        .filter(|m| matches!(*m, "image/png" | "image/jpeg" | "image/gif" | "image/webp"))
        .ok_or_else(|| {
            CliError::Invalid(format!(
                "{} is not a PNG, JPEG, GIF or WebP picture",
                path.display()
            ))
        })?;
    Ok(format!(
        "data:{kind};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}
