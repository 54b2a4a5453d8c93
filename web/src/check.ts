// Asks the table whether a selection is a legal move now (TableService.CheckAction), so 出牌 can be
// greyed out with the rule's reason. A server without the RPC is answered from the view's own
// list of legal actions instead.
import { Code, codeOf, reasonOf, table } from "./api";
import { bilingual } from "./refusals";

export interface Check {
  legal: boolean;
  reason: string;
}

let unimplemented = false;

function sameCards(a: string, b: string): boolean {
  const norm = (s: string) => s.trim().split(/\s+/).sort().join(" ");
  return norm(a) === norm(b);
}

/** Whether `action` is among the listed actions, cards compared in any order. */
export function listed(action: string, legal: string[]): boolean {
  const [verb, ...cards] = action.split(" ");
  return legal.some((a) => {
    const [v, ...c] = a.split(" ");
    return v === verb && sameCards(c.join(" "), cards.join(" "));
  });
}

export async function checkAction(tableId: string, action: string, legal: string[], more: boolean): Promise<Check> {
  if (!unimplemented) {
    try {
      const r = await table.checkAction({ tableId, action });
      // The rule's code says the reason in Chinese, before the rule's English particulars (a
      // server older than the code: every such refusal is an illegal selection).
      return { legal: r.legal, reason: r.legal ? "" : bilingual(r.code || "illegal_play", r.reason || "this selection is not a legal play now") };
    } catch (e) {
      if (codeOf(e) === Code.Unimplemented) unimplemented = true;
      else return { legal: false, reason: reasonOf(e) };
    }
  }
  if (listed(action, legal)) return { legal: true, reason: "" };
  if (more) return { legal: true, reason: "" };
  return { legal: false, reason: "不能这样出 This selection is not a legal play now" };
}
