"""The viewgrad command line and REPL (installed as package ``viewgrad_cli``)."""
