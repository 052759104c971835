/**
 * The photo of a return request, kept on the tablet (IndexedDB, through `idb`) from the moment the driver
 * asks until the server has stored it (docs/return-requests.md "Photo"): a dead spot or a reload loses
 * nothing. Keyed by the request's `client_key`, so it travels with the request kept in localStorage
 * (islands/_tablet_return_request.tsx); a database of its own, apart from the movements' queue.
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb";

interface RequestPhotoSchema extends DBSchema {
  photos: { key: string; value: Blob };
}

let opened: Promise<IDBPDatabase<RequestPhotoSchema>> | undefined;

function db(): Promise<IDBPDatabase<RequestPhotoSchema>> {
  opened ??= openDB<RequestPhotoSchema>("pm-tablet-request-photos", 1, {
    upgrade(database) {
      database.createObjectStore("photos");
    },
  });
  return opened;
}

export async function keepRequestPhoto(clientKey: string, photo: Blob): Promise<void> {
  await (await db()).put("photos", photo, clientKey);
}

export async function keptRequestPhoto(clientKey: string): Promise<Blob | undefined> {
  return await (await db()).get("photos", clientKey);
}

export async function dropRequestPhoto(clientKey: string): Promise<void> {
  await (await db()).delete("photos", clientKey);
}
