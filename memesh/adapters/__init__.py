"""The world outside the database: config.json, git for the project identity, note-file folders, Claude Code
transcripts."""
