/**
 * Who may see a stored photo (GET /photos/:id and its thumbnail), the same rule as the pages that show
 * it: dispatchers and admins see every photo (the dashboard shows them all); a driver only the photos they
 * took or of the movements they drove (the tablet receipt's rule), and the handover images they sent or of the
 * handovers they recorded (docs/handover.md). Photo ids are sequential, so without
 * this any driver could walk through every other driver's photos.
 */
import type { User } from "@/db/schema.ts";
import { isPhotoOfDriver } from "@/db/queries/photos.ts";
import type { AppDeps } from "@/lib/deps.ts";

export async function mayViewPhoto(
  { db }: Pick<AppDeps, "db">,
  user: Pick<User, "id" | "role">,
  photoId: number,
): Promise<boolean> {
  return user.role !== "driver" || await isPhotoOfDriver(db, photoId, user.id);
}
