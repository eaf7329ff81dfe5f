//! Property-based fuzzing of the core's input boundary: the validators, the JSON request
//! bodies and the search query translation.
//!
//! These run inside `cargo test` with a bounded number of cases (`PROPTEST_CASES`, 256 by
//! default; a few seconds in all). Properties: nothing panics on any input; what a
//! validator accepts, it accepts again unchanged after normalisation; any search text
//! runs against a real SQLite store without an error; and any entry is found by its text.

use std::sync::OnceLock;

use journal_core::api::{
    ChangePasswordRequest, CreateEntryRequest, LoginRequest, RegisterRequest, UpdateEntryRequest,
    UpdateProfileRequest,
};
use journal_core::domain::{
    Content, Email, FullName, Nickname, Password, ProfilePic, SearchQuery, Title,
};
use journal_core::input::{EntryChanges, NewEntry, NewUser, ProfileChanges};
use journal_core::{Caller, Journal, JournalOptions, PageRequest};
use proptest::prelude::*;
use serde_json::Value;

/// Any text, biased towards what breaks parsers: control characters, NUL, combining
/// marks, quotes, SQL and FTS syntax, very long runs.
fn nasty_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any::<String>(),
        2 => "\\PC{0,40}",
        2 => proptest::collection::vec(
            prop_oneof![
                Just("\"".to_owned()), Just("'".to_owned()), Just("*".to_owned()),
                Just("\0".to_owned()), Just("\\".to_owned()), Just(" ".to_owned()),
                Just("OR".to_owned()), Just("NEAR(".to_owned()), Just(")".to_owned()),
                Just("^".to_owned()), Just(":".to_owned()), Just("-".to_owned()),
                Just("'; DROP TABLE entries; --".to_owned()), Just("%".to_owned()),
                Just("&".to_owned()), Just("|".to_owned()), Just("!".to_owned()),
                Just("é".to_owned()), Just("ß".to_owned()), Just("İ".to_owned()),
                Just("\u{301}".to_owned()), Just("\u{200b}".to_owned()),
                Just("😀".to_owned()), Just("\u{feff}".to_owned()),
                Just("\r\n".to_owned()), Just("\t".to_owned()),
                "[a-zA-Z0-9]{1,8}",
            ],
            0..24,
        ).prop_map(|parts| parts.concat()),
        1 => "[a-z]{60,70}",
        1 => (any::<char>(), 0usize..3000).prop_map(|(c, n)| c.to_string().repeat(n)),
    ]
}

/// Arbitrary JSON, a few levels deep, with keys that the request types know.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("fullName".to_owned()),
        Just("nickname".to_owned()),
        Just("email".to_owned()),
        Just("password".to_owned()),
        Just("newPassword".to_owned()),
        Just("profilePic".to_owned()),
        Just("isPrivate".to_owned()),
        Just("title".to_owned()),
        Just("content".to_owned()),
        Just("isPublic".to_owned()),
        Just("role".to_owned()),
        Just("_id".to_owned()),
        any::<String>(),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        nasty_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

/// Feeds `value` to every request type and, where it parses, through validation.
fn through_every_request(value: &Value) {
    if let Ok(r) = serde_json::from_value::<RegisterRequest>(value.clone()) {
        let _ = NewUser::try_from(&r);
    }
    if let Ok(r) = serde_json::from_value::<UpdateProfileRequest>(value.clone()) {
        let _ = ProfileChanges::try_from(&r);
    }
    if let Ok(r) = serde_json::from_value::<CreateEntryRequest>(value.clone()) {
        let _ = NewEntry::try_from(&r);
    }
    if let Ok(r) = serde_json::from_value::<UpdateEntryRequest>(value.clone()) {
        let _ = EntryChanges::try_from(&r);
    }
    if let Ok(r) = serde_json::from_value::<ChangePasswordRequest>(value.clone())
        && let Some(p) = r.new_password.as_deref()
    {
        let _ = Password::parse_field("newPassword", p);
    }
    let _ = serde_json::from_value::<LoginRequest>(value.clone());
}

proptest! {
    #[test]
    fn email_never_panics_and_is_stable_after_normalisation(s in nasty_text()) {
        if let Ok(email) = Email::parse(&s) {
            let again = Email::parse(email.as_ref()).expect("a normalised e-mail parses again");
            prop_assert_eq!(&again, &email);
            prop_assert_eq!(email.as_ref(), email.as_ref().trim().to_lowercase());
        }
    }

    #[test]
    fn ordinary_emails_are_accepted_whatever_their_case(
        local in "[a-zA-Z0-9_+]{1,20}(\\.[a-zA-Z0-9_+]{1,10})?",
        domain in "[a-zA-Z0-9]{1,20}(\\.[a-zA-Z]{2,6}){0,2}",
    ) {
        let raw = format!("  {local}@{domain} ");
        let email = Email::parse(&raw).expect("an ordinary address is valid");
        prop_assert_eq!(email.as_ref(), format!("{local}@{domain}").to_lowercase());
    }

    #[test]
    fn password_never_panics(s in nasty_text()) {
        if Password::parse(&s).is_ok() {
            let chars = s.chars().count();
            prop_assert!((8..=1024).contains(&chars), "{chars} characters accepted");
            prop_assert!(!s.contains('\0'));
        }
    }

    #[test]
    fn names_and_titles_never_panic_and_are_stable(s in nasty_text()) {
        for (value, max) in [
            (FullName::parse(&s).map(FullName::into_inner), 100),
            (Nickname::parse(&s).map(Nickname::into_inner), 100),
            (Title::parse(&s).map(Title::into_inner), 200),
        ] {
            if let Ok(v) = value {
                prop_assert_eq!(v.trim(), v.as_str());
                prop_assert!(!v.is_empty() && v.chars().count() <= max);
                prop_assert!(!v.contains('\0'));
            }
        }
        if let Ok(t) = Title::parse(&s) {
            prop_assert_eq!(Title::parse(t.as_ref()).expect("stable"), t);
        }
        if let Ok(n) = FullName::parse(&s) {
            prop_assert_eq!(FullName::parse(n.as_ref()).expect("stable"), n);
        }
        if let Ok(n) = Nickname::parse(&s) {
            prop_assert_eq!(Nickname::parse(n.as_ref()).expect("stable"), n);
        }
    }

    #[test]
    fn ordinary_titles_are_accepted(s in "[\\p{L}\\p{N}][\\p{L}\\p{N} ,.!?'-]{0,150}") {
        let title = Title::parse(&s).expect("an ordinary title is valid");
        prop_assert_eq!(title.as_ref(), s.trim());
    }

    #[test]
    fn content_is_kept_exactly(s in nasty_text()) {
        match Content::parse(&s) {
            Ok(c) => prop_assert_eq!(c.as_ref(), s.as_str()),
            Err(_) => prop_assert!(s.contains('\0') || s.chars().count() > 100_000),
        }
    }

    #[test]
    fn profile_pic_never_panics(
        s in prop_oneof![
            nasty_text(),
            ("(png|jpeg|jpg|gif|webp|svg\\+xml|)", "[A-Za-z0-9+/=]{0,64}", "[ ,;]{0,2}")
                .prop_map(|(kind, payload, junk)| format!("data:image/{kind};base64,{payload}{junk}")),
        ]
    ) {
        if let Ok(pic) = ProfilePic::parse(&s) {
            prop_assert_eq!(ProfilePic::parse(pic.as_ref()).expect("stable"), pic);
        }
    }

    #[test]
    fn timestamps_are_written_as_chrono_writes_rfc_3339(
        ms in prop_oneof![
            4 => -62_167_219_200_000i64..253_402_300_800_000, // years 0 to 9999
            1 => any::<i64>(),
        ]
    ) {
        use chrono::SecondsFormat;
        let t = journal_core::domain::Timestamp::from_millis(ms);
        let expected = t.to_datetime().to_rfc3339_opts(SecondsFormat::Millis, true);
        prop_assert_eq!(t.to_string(), expected.clone());
        prop_assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{expected}\""));
        // What is written reads back as the same instant, in the years RFC 3339 has.
        if (-62_167_219_200_000..253_402_300_800_000).contains(&ms) {
            prop_assert_eq!(journal_core::domain::Timestamp::parse(&expected).ok(), Some(t));
        }
    }

    #[test]
    fn page_request_never_panics(page in nasty_text(), limit in nasty_text(), n in any::<i64>(), m in any::<i64>()) {
        let _ = PageRequest::from_query(Some(&page), Some(&limit));
        let _ = PageRequest::from_query(Some(&n.to_string()), Some(&m.to_string()));
        if let Ok(p) = PageRequest::new(Some(n), Some(m)) {
            prop_assert!(p.page() >= 1 && (1..=100).contains(&p.limit()));
            let _ = p.offset();
        }
    }

    #[test]
    fn search_query_keeps_only_bounded_words(s in nasty_text()) {
        match SearchQuery::parse(&s) {
            Ok(q) => {
                prop_assert!(q.terms().len() <= SearchQuery::MAX_TERMS);
                for t in q.terms() {
                    prop_assert!(!t.is_empty() && t.chars().count() <= SearchQuery::MAX_TERM_CHARS);
                    // Letters and digits, or a run of a script written without spaces,
                    // whose marks (a Thai or Lao tone mark) are no letters: never syntax.
                    prop_assert!(
                        t.chars().all(|c| c.is_alphanumeric() || journal_core::domain::is_run_char(c)),
                        "{t:?}"
                    );
                }
            }
            Err(_) => prop_assert!(s.trim().is_empty()),
        }
    }

    #[test]
    fn arbitrary_bytes_as_request_bodies_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
            through_every_request(&value);
        }
    }

    #[test]
    fn arbitrary_json_through_every_request_never_panics(value in json_value()) {
        through_every_request(&value);
    }
}

/// One journal on a SQLite file for the search property: a user with a few entries.
struct SearchFixture {
    runtime: tokio::runtime::Runtime,
    journal: Journal,
    caller: Caller,
    _dir: tempfile::TempDir,
}

fn search_fixture() -> &'static SearchFixture {
    static FIXTURE: OnceLock<SearchFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite:{}", dir.path().join("fuzz.db").display());
        let (journal, caller) = runtime.block_on(async {
            let journal = Journal::open(&url, JournalOptions::default())
                .await
                .expect("open");
            let user = journal
                .register(&RegisterRequest {
                    full_name: Some("Fuzz Tester".into()),
                    nickname: Some("fuzz".into()),
                    email: Some("fuzz@example.com".into()),
                    password: Some("a long enough passphrase".into()),
                    ..Default::default()
                })
                .await
                .expect("register");
            let caller = journal.local_caller(&user).await.expect("caller");
            for (title, content) in [
                (
                    "Café notes",
                    "Ünïcödé, émojis 😀 and \"quotes\" AND OR NOT NEAR",
                ),
                ("SQL", "'; DROP TABLE entries; -- * ^ : ( )"),
                ("plain", "the quick brown fox jumps over the lazy dog"),
            ] {
                journal
                    .create_entry(
                        &caller,
                        &CreateEntryRequest {
                            title: Some(title.into()),
                            content: Some(content.into()),
                            is_public: Some(false),
                            ..Default::default()
                        },
                    )
                    .await
                    .expect("create");
            }
            (journal, caller)
        });
        SearchFixture {
            runtime,
            journal,
            caller,
            _dir: dir,
        }
    })
}

proptest! {
    #[test]
    fn any_search_text_runs_on_sqlite_without_an_error(q in nasty_text(), page in 1u32..4, limit in 1u32..=100) {
        let f = search_fixture();
        let page = PageRequest::new(Some(i64::from(page)), Some(i64::from(limit))).expect("valid page");
        let result = f.runtime.block_on(f.journal.search(&f.caller, &q, page));
        match result {
            Ok(found) => prop_assert!(found.items.len() <= limit as usize),
            Err(journal_core::Error::Validation(_)) => prop_assert!(q.trim().is_empty()),
            Err(e) => prop_assert!(false, "search for {q:?} failed: {e}"),
        }
    }

    /// The index and the query split and fold text by the same rule: an entry is found
    /// by its own text as the query, whatever that text holds.
    #[test]
    fn an_entry_is_found_by_its_own_text(text in nasty_text()) {
        let f = search_fixture();
        let words = journal_core::domain::search_words(&text);
        prop_assume!(!words.is_empty());
        let created = f.runtime.block_on(f.journal.create_entry(
            &f.caller,
            &CreateEntryRequest {
                title: Some("fuzz".into()),
                content: Some(text.clone()),
                is_public: Some(false),
                ..Default::default()
            },
        ));
        let Ok(created) = created else { return Ok(()) }; // content the rules refuse
        let page = PageRequest::new(Some(1), Some(100)).expect("valid page");
        let found = f.runtime.block_on(f.journal.search(&f.caller, &text, page));
        f.runtime
            .block_on(f.journal.delete_entry(&f.caller, &created.id))
            .expect("delete");
        let found = found.expect("search");
        prop_assert!(
            found.items.iter().any(|e| e.id == created.id),
            "{text:?} (words {words:?}) did not find its entry"
        );
    }
}
