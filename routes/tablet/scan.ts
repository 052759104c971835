/**
 * `POST /tablet/api/scan {code, job?, rego?}` (docs/labels.md "The scan endpoint"): the part a scanned or
 * typed code names, for the tablet's rego and parts steps, as lib/labels/resolve.ts decides it. Mounted by
 * routes/tablet/api.ts with the other JSON endpoints (64 KiB body limit, driver check, X-CSRF-Token header);
 * a refusal is the API's one mapping, `{message, part_id?}` with 422.
 */
import { Hono } from "hono";
import { z } from "zod";
import { JOB_NAMES, type JobName, JOBS, type ScanAnswer } from "@/components/tablet_jobs.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { resolveScan } from "@/lib/labels/resolve.ts";
import { CONTROL_PROBLEM, isLineText, parseInput, regoField } from "@/lib/validation.ts";
import { readJson } from "@/routes/tablet/json_body.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

const scanSchema = z.object({
  // A label code is about a dozen characters, a supplier's part number a few dozen at most.
  code: z.string().trim().min(1).max(64).refine(isLineText, { message: CONTROL_PROBLEM }),
  job: z.enum(JOB_NAMES as [JobName, ...JobName[]]).optional(),
  rego: regoField.optional(),
});

export function scanRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.post("/", async (c) => {
    const { code, job, rego } = parseInput(scanSchema, await readJson(c));
    const part = await resolveScan(deps.db, { code, rego, flow: job && JOBS[job].flow });
    const answer: ScanAnswer = {
      part_id: part.partId,
      part_no: part.partNo,
      claim_number: part.claimNumber,
      rego: part.rego,
    };
    return c.json(answer);
  });
  return app;
}
