"""Configuration: settings, their pydantic schema, TOML line numbers, the user's trust."""
