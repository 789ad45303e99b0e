"""The person's pages under /me/ (SPEC W-1 … W-5). Thin: parse, call one service or selector, render."""
