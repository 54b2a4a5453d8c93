// The fairness check: the commitment published when a hand starts is SHA-256(seed ‖ order),
// the order in card notation as ASCII (services/paiju/cards.py); the seed and order revealed at
// the end must give it back.
import type { HandReveal } from "./gen/paiju/v1/hand_parts_pb";
import type { ZhajinhuaReveal } from "./gen/paiju/v1/zhajinhua_pb";

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

async function sha256Hex(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function commitmentOf(seedHex: string, order: string): Promise<string> {
  const seed = hexToBytes(seedHex);
  const text = new TextEncoder().encode(order);
  const joined = new Uint8Array(seed.length + text.length);
  joined.set(seed);
  joined.set(text, seed.length);
  return sha256Hex(joined);
}

export interface Deal {
  seed: string;
  order: string;
}

/** The revealed deals of a finished hand's public view, whatever the game: the trick games
 * reveal every deal (a hand nobody declared in is dealt again), 炸金花 its one. */
export function dealsOf(reveal: HandReveal | ZhajinhuaReveal | undefined): Deal[] {
  if (!reveal) return [];
  if (reveal.$typeName === "paiju.v1.HandReveal") return reveal.deals;
  if (reveal.seed && reveal.order) return [{ seed: reveal.seed, order: reveal.order }];
  return [];
}

export interface FairnessResult {
  ok: boolean;
  commitment: string;
  computed: string;
}

/** Checks the last deal against the commitment the view showed (every redeal publishes anew). */
export async function verifyDeal(commitment: string, deal: Deal): Promise<FairnessResult> {
  const computed = await commitmentOf(deal.seed, deal.order);
  return { ok: computed === commitment, commitment, computed };
}
