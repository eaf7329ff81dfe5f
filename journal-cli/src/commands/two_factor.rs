//! `journal 2fa`: the second factor, a code from an authenticator app at login.

use clap::{Args, Subcommand};
use serde_json::json;

use super::login::CODE_TRIES;
use super::prompt::{ask_code, stdin_or_terminal, typed_code};
use super::{Ctx, confirm};
use crate::backend::Backend;
use crate::error::{CliError, Result};
use crate::output::{print, print_json};
use crate::text;

/// `journal 2fa`: turn it on or off.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  journal 2fa enable           # shows a QR code, asks for a code, prints recovery codes\n  journal 2fa disable"
)]
pub struct TwoFactor {
    /// What to do.
    #[command(subcommand)]
    pub action: TwoFactorAction,
}

/// `journal 2fa …`
#[derive(Debug, Subcommand)]
pub enum TwoFactorAction {
    /// Turn the second factor on: shows the secret as a QR code for an authenticator
    /// app, asks for a code from it, and prints recovery codes once.
    #[command(
        after_help = "Examples:\n  journal 2fa enable\n\n  # Off a terminal, in two steps: the first prints the secret (--json: \"secret\",\n  # \"otpauthUrl\"), the second confirms a code from it.\n  journal 2fa enable --json\n  journal 2fa enable --code 123456"
    )]
    Enable {
        /// A code from the authenticator app, confirming the secret set up by an earlier
        /// `journal 2fa enable` (without this flag, a new secret is set up first).
        #[arg(long, value_name = "CODE")]
        code: Option<String>,
    },
    /// Turn the second factor off (needs the password and a code or a recovery code).
    #[command(
        after_help = "Examples:\n  journal 2fa disable\n  printf 'password\\n' | journal 2fa disable --password-stdin --code 123456"
    )]
    Disable {
        /// A code from the authenticator app, or a recovery code.
        #[arg(long, value_name = "CODE")]
        code: Option<String>,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
}

impl TwoFactor {
    pub(super) async fn run(self, ctx: &Ctx, b: &Backend) -> Result<()> {
        two_factor(ctx, b, self.action).await
    }
}

/// The setup's secret as a QR code of Unicode half blocks, two rows of modules to a
/// line so that it fits a terminal. Light modules are drawn as blocks, dark ones left
/// blank: on the usual dark terminal background that reads as dark on light, which
/// is what authenticator apps scan best.
fn qr_code(text: &str) -> Option<String> {
    use qrcode::render::unicode::Dense1x2;
    let code = qrcode::QrCode::new(text.as_bytes()).ok()?;
    Some(
        code.render::<Dense1x2>()
            .dark_color(Dense1x2::Light)
            .light_color(Dense1x2::Dark)
            .quiet_zone(true)
            .build(),
    )
}

async fn two_factor(ctx: &Ctx, b: &Backend, action: TwoFactorAction) -> Result<()> {
    match action {
        TwoFactorAction::Enable { code: Some(code) } => {
            b.require_server("2fa enable")?;
            b.require_login()?;
            enable(ctx, b, &typed_code(&code)).await
        }
        TwoFactorAction::Enable { code: None } => {
            b.require_server("2fa enable")?;
            b.require_login()?;
            let setup = b.setup_totp().await?;
            // Scripts (and --json) get the secret and confirm it in a second step.
            let ask = text::interactive() && !ctx.json;
            if ctx.json {
                print_json(&json!({
                    "enabled": false,
                    "secret": setup.secret,
                    "otpauthUrl": setup.otpauth_url,
                }));
                return Ok(());
            }
            ctx.note("Scan this QR code with an authenticator app (or type the secret into it):");
            if let Some(qr) = qr_code(&setup.otpauth_url) {
                print(&qr);
            }
            print(&format!(
                "secret:  {}\nurl:     {}",
                setup.secret, setup.otpauth_url
            ));
            if !ask {
                ctx.note(
                    "The second factor is not on yet: confirm a code from the app with journal 2fa enable --code CODE",
                );
                return Ok(());
            }
            let mut tries = 0;
            loop {
                let code = ask_code("Code from the app: ")?;
                match enable(ctx, b, &code).await {
                    Err(CliError::Invalid(why)) if tries + 1 < CODE_TRIES => {
                        eprintln!("{why}");
                        tries += 1;
                    }
                    other => return other,
                }
            }
        }
        TwoFactorAction::Disable {
            code,
            password_stdin,
        } => {
            b.require_server("2fa disable")?;
            b.require_login()?;
            if code.is_none() && !text::interactive() {
                return Err(CliError::Usage(
                    "not on a terminal, so cannot ask for the code; pass --code CODE (a code from the app, or a recovery code)".into(),
                ));
            }
            let password = match stdin_or_terminal(password_stdin)? {
                Some(mut lines) => lines.next("the password")?,
                None => text::ask_password("Password: ")?,
            };
            let code = match code {
                Some(code) => typed_code(&code),
                None => ask_code("Code from the app (or a recovery code): ")?,
            };
            b.disable_totp(&password, &code).await?;
            if ctx.json {
                print_json(&json!({ "enabled": false }));
            } else if !ctx.quiet {
                print("the second factor is off: login needs only the password");
            }
            Ok(())
        }
    }
}

/// Confirms the secret set up with a code, and shows the recovery codes this once.
async fn enable(ctx: &Ctx, b: &Backend, code: &str) -> Result<()> {
    let codes = confirm::confirmed(Default::default(), |proof| async move {
        b.enable_totp(code, proof.password).await
    })
    .await?
    .recovery_codes;
    if ctx.json {
        print_json(&json!({ "enabled": true, "recoveryCodes": codes }));
        return Ok(());
    }
    ctx.note(format!(
        "The second factor is on: login asks for a code from the app.\nThese {} recovery codes are shown only now. Store them somewhere safe (a password manager,\non paper): each works once in place of a code if you lose the app.",
        codes.len()
    ));
    print(&codes.join("\n"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_code_is_half_blocks() {
        let qr = qr_code("otpauth://totp/Journal:a@example.com?secret=JBSWY3DPEHPK3PXP").unwrap();
        assert!(qr.contains('\u{2588}'), "{qr}");
        assert!(qr.contains('\u{2580}') || qr.contains('\u{2584}'), "{qr}");
        let lines: Vec<&str> = qr.lines().collect();
        // Two rows of modules to a line: about half as many lines as columns.
        let width = lines[0].chars().count();
        assert!(
            lines.len() <= width / 2 + 1,
            "{} lines of {width}",
            lines.len()
        );
    }
}
