/**
 * Call 2a, `parts_movement_upload_token` (docs/protocol.md 2a, D17): checks the part may be photographed for
 * the stage, creates the staged Parts_Uploaded_Images row and mints the one-use token for call 2b, in one
 * transaction. Also the Authorization header the upload (2b) reads (minting and hashing: io/tokens.ts).
 */
import type { MovementStage, User } from "@/db/schema.ts";
import { isOnOpenReturnTrip } from "@/db/queries/movements.ts";
import { partOfClaim } from "@/db/queries/parts.ts";
import { insertStagedImageWithToken } from "@/db/queries/photos.ts";
import { resolveClaim } from "@/lib/claims.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { flowOfStage } from "@/lib/flows.ts";
import { mintToken } from "@/io/tokens.ts";

/** The staging form, its report (the upload path uses the report) and its image field (docs/protocol.md). */
export const UPLOAD_FORM_NAME = "Parts_Uploaded_Images";
export const UPLOAD_REPORT_NAME = "Parts_Movement_Uploaded_Images_Temp_Report";
export const UPLOAD_FIELD_NAME = "Parts_Image";

/** A token of io/tokens.ts: 32 bytes in base64url, unpadded: 43 characters of A-Z a-z 0-9 - _. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** `<Word>-oauthtoken <token>`, any scheme word (D18: e.g. `Zoho-oauthtoken`). */
const AUTHORIZATION_PATTERN = /^[A-Za-z][A-Za-z0-9_]*-oauthtoken +(\S+)\s*$/i;

/** The token of an `Authorization: <Word>-oauthtoken <token>` header, or null if it cannot be one. */
export function tokenFromAuthorization(header: string | null | undefined): string | null {
  const match = header?.trim().match(AUTHORIZATION_PATTERN);
  if (!match || !TOKEN_PATTERN.test(match[1])) return null;
  return match[1];
}

export interface UploadTokenRequest {
  partId: number;
  stage: MovementStage;
  rego: string;
  /** The shortest rego that may match a part of a registration: D11's by default, the handler's D30. */
  containsFrom?: number;
}

export interface UploadTokenAnswer {
  app_owner: string;
  app_name: string;
  form_name: typeof UPLOAD_FORM_NAME;
  report_name: typeof UPLOAD_REPORT_NAME;
  field_name: typeof UPLOAD_FIELD_NAME;
  record_id: number;
  token: string;
  /** Only in development and stage (docs/protocol.md 2a). */
  environment?: true;
}

/**
 * D17 order after validation and user: claim by rego for the stage's flow (`Rego not found`), the part on
 * that claim (`Part not found.`), its status (the flow's "no longer …"), and for a drop-off at HQ the
 * open return trip (D20's `<Part No.> is not part of this return trip.`).
 */
export async function createUploadToken(
  { db, config, clock }: Pick<AppDeps, "db" | "config" | "clock">,
  user: User,
  req: UploadTokenRequest,
): Promise<UploadTokenAnswer> {
  const flow = flowOfStage(req.stage);
  const claim = await resolveClaim(
    db,
    req.rego,
    req.stage === "direct_dropoff" ? "direct" : "reverse",
    req.containsFrom,
  );
  if (!claim) throw new DomainError("not_found", "Rego not found");
  const part = await partOfClaim(db, req.partId, claim.id);
  if (!part) throw new DomainError("not_found", "Part not found.");
  if (part.status !== flow.from) {
    throw new DomainError("conflict", flow.noLongerAvailable(part.part_no), part.id);
  }
  if (req.stage === "reverse_dropoff" && !await isOnOpenReturnTrip(db, claim.id, part.id)) {
    throw new DomainError("refused", `${part.part_no} is not part of this return trip.`, part.id);
  }

  const now = clock.now();
  const { token, hash } = mintToken();
  const recordId = await db.transaction().execute((trx) =>
    insertStagedImageWithToken(
      trx,
      { partId: part.id, claimId: claim.id, stage: req.stage, userId: user.id, uploadedAt: now },
      {
        hash,
        fieldName: UPLOAD_FIELD_NAME,
        expiresAt: new Date(now.getTime() + config.uploadTokenTtlSeconds * 1000),
      },
    )
  );
  return {
    app_owner: config.appOwner,
    app_name: config.appName,
    form_name: UPLOAD_FORM_NAME,
    report_name: UPLOAD_REPORT_NAME,
    field_name: UPLOAD_FIELD_NAME,
    record_id: recordId,
    token,
    ...(config.appEnv === "production" ? {} : { environment: true as const }),
  };
}
