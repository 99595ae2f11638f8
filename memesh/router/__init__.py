"""The local message router: live session registrations and exact-session delivery to a host adapter.

One owner-private Unix socket in the MeMesh folder (`router.sock`, mode 0600, peers checked to be the owner).
See docs/adr/0005-message-router.md.
"""
