/** The handler's answer shapes (docs/protocol.md "Common", D7, D8). */
export const success = (data: unknown) => ({ result: { data, status: "success" }, code: 3000 });

/** A rule or validation failure: HTTP 200, message in `result.text` (D8). */
export const failure = (text: string) => ({ result: { status: "failure", text }, code: 3000 });
