"""Browser tools over a real Chromium (issue 48): an isolated headless browser by default, the user's own
browser on request (shared mode), driven through Playwright on one background thread."""
