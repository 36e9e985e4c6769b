"""Decisions and findings as OpenTelemetry log records over OTLP/HTTP (off the hot path)."""
