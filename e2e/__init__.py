"""End-to-end tests: the playground in Chromium, against each host."""
