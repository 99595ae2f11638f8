"""What the endpoints share (`common`), and the one page that is not JSON (`dashboard`)."""
