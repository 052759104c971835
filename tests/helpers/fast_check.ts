/**
 * fast-check, pinned here once: a test-only package, so it is not in deno.json's import map (installing the
 * service fetches none of them; docs/testing.md "Packages and lock files").
 */
export { default } from "npm:fast-check@4.10.2";
