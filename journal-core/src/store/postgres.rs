//! The PostgreSQL store (issue 5): many stateless servers on one shared database.
