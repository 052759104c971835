/**
 * The handover step of the TabletFlow island, under the review (docs/handover.md): the receiver's name and
 * signature, or, when the job's policy is "optional", "Nobody to sign" with a reason and a photo of where
 * the parts were left. Everything is kept on the device as the driver goes (the movement's draft); the
 * signature becomes a PNG when the driver confirms, and the queue sends it before the submission.
 *
 * The review imports this module (and with it the signature pad) when it opens: a chunk of its own,
 * outside the job page's first load (the JavaScript budget, docs/performance.md); the service worker keeps
 * every chunk of the build, so it opens in a dead spot too.
 */
import type { RefObject } from "preact";
import type { HandoverStep, JobName } from "@/components/tablet_jobs.ts";
import type { FlowStore } from "./_tablet_store.ts";
import { NAME_MAX } from "./_tablet_handover_rules.ts";
import { CameraButton, PhotoStatusLine } from "./_tablet_parts.tsx";
import { type PadHandle, SignatureField } from "./_tablet_signature.tsx";

/** Who signs, in the job's terms (the driver reads it to the receiver). */
const WHO_SIGNS: Record<JobName, string> = {
  deliver: "The person at the repair shop receiving the parts types their name and signs.",
  collect: "The person at the repair shop handing the parts over types their name and signs.",
  return: "The person at HQ receiving the parts types their name and signs.",
};

export function HandoverSection(props: {
  jobName: JobName;
  offer: HandoverStep;
  store: FlowStore;
  pad: RefObject<PadHandle | null>;
}) {
  const { offer, store: s } = props;
  const h = s.handover;
  const nobody = offer.policy === "optional" && h.nobody;
  return (
    <section class="card space-y-4" aria-labelledby="handover-heading" data-testid="handover">
      <h2 id="handover-heading" class="text-2xl font-bold">Handover</h2>
      <p>
        {WHO_SIGNS[props.jobName]}
        {offer.policy === "optional" && " If nobody can sign, choose Nobody to sign."}
      </p>
      {s.refusal && <p class="msg-error" role="alert" data-testid="handover-refusal">{s.refusal}</p>}
      {!nobody && (
        <>
          <div>
            <label for="receiver-name" class="field-label">Receiver's name</label>
            <input
              id="receiver-name"
              class="field"
              type="text"
              autocomplete="off"
              autocapitalize="words"
              maxLength={NAME_MAX}
              value={h.receiverName}
              onInput={(e) => void s.setHandover({ receiverName: e.currentTarget.value })}
            />
          </div>
          <SignatureField
            strokes={h.strokes}
            onStrokes={(strokes) => void s.setHandover({ strokes })}
            handle={props.pad}
          />
        </>
      )}
      {offer.policy === "optional" && <NobodyToSign offer={offer} store={s} />}
    </section>
  );
}

function NobodyToSign({ offer, store: s }: { offer: HandoverStep; store: FlowStore }) {
  const h = s.handover;
  const left = s.left.photo;
  return (
    <div class="space-y-4 border-t-2 border-slate-200 pt-4">
      <label class="flex min-h-14 cursor-pointer items-center gap-4">
        <input
          type="checkbox"
          class="toggle"
          checked={h.nobody}
          onChange={(e) => void s.setHandover({ nobody: e.currentTarget.checked })}
        />
        <span class="text-xl font-semibold">Nobody to sign</span>
      </label>
      {h.nobody && (
        <>
          <fieldset class="space-y-2">
            <legend class="field-label">Why nobody signs</legend>
            {offer.reasons.map((r) => (
              <label
                key={r.key}
                class={`flex min-h-14 cursor-pointer items-center gap-4 rounded-xl border-2 px-4 ${
                  h.reason === r.key ? "border-blue-800 bg-blue-50" : "border-slate-300 bg-white"
                }`}
              >
                <input
                  type="radio"
                  name="unsigned-reason"
                  class="h-7 w-7 shrink-0"
                  value={r.key}
                  checked={h.reason === r.key}
                  onChange={() => void s.setHandover({ reason: r.key })}
                />
                {r.label}
              </label>
            ))}
          </fieldset>
          <p class="field-label" aria-hidden="true">Photo of where the parts were left</p>
          <div class="flex flex-wrap items-center gap-4" data-testid="left-photo">
            {left?.preview && (
              <img
                src={left.preview}
                alt="Where the parts were left"
                class="h-28 w-28 shrink-0 rounded-lg border-2 border-slate-300 object-cover"
              />
            )}
            <div class="grow basis-56">
              {left ? <PhotoStatusLine photo={left} /> : <p>Photograph where the parts were left.</p>}
              {s.left.error && <p class="msg-error" role="alert">{s.left.error}</p>}
            </div>
            <CameraButton
              label={`${left ? "Retake" : "Take"} photo of where the parts were left`}
              primary={!left}
              onFile={(file) => void s.takePhoto("left", file)}
            />
          </div>
        </>
      )}
    </div>
  );
}
