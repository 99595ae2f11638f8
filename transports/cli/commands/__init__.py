"""Command declarations (flags and help only), registered on the app; each imports its action when it runs."""
