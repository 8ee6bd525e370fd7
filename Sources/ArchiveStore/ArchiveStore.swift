// The archive store arrives with issue 3; see docs/archive-schema.md once it lands.
