/**
 * The one place where a refusal or a fault becomes an answer for a page face: styled HTML in the HQ shell
 * (components/hq/HqShell.tsx) for /hq…, in the tablet layout for /tablet…; JSON for the mobile API and the
 * tablet's JSON endpoints (/tablet/api/…); the app-wide 404 and 503 (main.ts) go through it too. The mobile
 * faces map their own errors (routes/api/envelope.ts, routes/api/codes.ts, routes/tablet/api.ts).
 */
import type { Context } from "hono";
import { errorPage, type HqContext } from "@/components/hq/page.tsx";
import { TabletHeader } from "@/components/TabletHeader.tsx";
import { TabletLayout } from "@/components/TabletLayout.tsx";
import { renderPage } from "@/render/page.tsx";
import { CODE } from "@/routes/api/codes.ts";
import { logger } from "@/io/log.ts";

export type ErrorStatus = 401 | 403 | 404 | 503;

type Face = "hq" | "tablet" | "tablet_api" | "other";

const TITLES: Record<ErrorStatus, string> = {
  401: "Signed out",
  403: "Not allowed",
  404: "Not found",
  503: "Service unavailable",
};

const NOT_FOUND = "This page does not exist.";

function faceOf(path: string): Face {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  if (under("/tablet/api")) return "tablet_api";
  if (under("/tablet")) return "tablet";
  return under("/hq") ? "hq" : "other";
}

/** The way back from an error page: home of the face, or its sign-in page once signed out. */
function backLink(face: "hq" | "tablet", status: ErrorStatus): [string, string] {
  if (face === "hq") return status === 401 ? ["/hq/sign-in", "Sign in"] : ["/hq/parts", "Back to parts"];
  return status === 401 ? ["/tablet/sign-in", "Sign in"] : ["/tablet", "Back to the jobs"];
}

async function htmlPage(c: Context, face: "hq" | "tablet", status: ErrorStatus, message: string) {
  const title = TITLES[status];
  const [href, label] = backLink(face, status);
  try {
    if (face === "hq") {
      return await errorPage(c as HqContext, {
        status,
        title,
        children: (
          <>
            {message} <a class="text-sky-800 underline" href={href}>{label}</a>
          </>
        ),
      });
    }
    const html = await renderPage(
      <>
        <TabletHeader title={title} />
        <main id="main" class="mx-auto max-w-5xl space-y-4 p-4">
          <div class="msg-error" role="alert">
            <h1 class="text-3xl font-bold">{title}</h1>
            <p class="text-xl">{message}</p>
          </div>
          <a class="btn btn-secondary" href={href}>{label}</a>
        </main>
      </>,
      { title: `${title} · Depot tablet`, layout: TabletLayout },
    );
    return c.html(html, status);
  } catch (error) {
    // An error page must not fail in turn (assets not built, a fault while rendering): say it plainly.
    logger("http").error("Error page failed (request {request_id}): {error}", {
      request_id: c.var.requestId,
      error: String(error),
    });
    return c.text(message, status);
  }
}

/**
 * A refusal on a page face (not signed in, wrong role, expired form, no such thing): the styled page on
 * /hq… and /tablet…, `{message}` JSON on the tablet's JSON endpoints (the islands show it), text elsewhere.
 */
export function refusal(c: Context, status: ErrorStatus, message: string): Response | Promise<Response> {
  const face = faceOf(c.req.path);
  if (face === "tablet_api") return c.json({ message }, status);
  return face === "other" ? c.text(message, status) : htmlPage(c, face, status, message);
}

/** The app-wide 404: the styled page for page paths, `{code: 4040}` JSON for the APIs and the rest. */
export function notFoundAnswer(c: Context): Response | Promise<Response> {
  const face = faceOf(c.req.path);
  if (face === "hq" || face === "tablet") return htmlPage(c, face, 404, NOT_FOUND);
  return c.json({ code: CODE.notFound, message: "Not found." }, 404);
}

/**
 * The app-wide answer to an unexpected fault, logged under `requestId` (the request's own id, also in its
 * X-Request-Id header): no internals, on any face.
 */
export function faultAnswer(c: Context, requestId: string): Response | Promise<Response> {
  const message = `Service temporarily unavailable. Try again (ref ${requestId}).`;
  const face = faceOf(c.req.path);
  if (face === "hq" || face === "tablet") return htmlPage(c, face, 503, message);
  return c.json({ code: CODE.unavailable, message }, 503);
}
