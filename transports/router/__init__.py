"""The local message router (`memesh message router`): live session registrations on one owner-private Unix socket
and exact-session delivery to their host adapters. See docs/adr/0004-message-router.md."""
