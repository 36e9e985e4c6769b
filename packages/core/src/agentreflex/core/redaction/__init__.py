"""Secret detection and redaction: one engine, gitleaks' rules and context rules."""
