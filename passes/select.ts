/**
 * @fileoverview Pass "select": the one selection policy of every target. Every candidate is a
 * complete, correct lowering (each is checked and proved on its own, shadowed ones too), so
 * selection is a cost decision only: the lowest `cost`, then the higher `prio`, then the
 * earlier definition. Never correctness by tie-break.
 */

/**
 * The selected candidate's value.
 * @param candidates in rule-definition order, each with its rule's priority; at least one.
 * @param cost the target's cost of a lowering (AMDGPU: static issue cycles; portable: 0, so
 *   priority then order decide).
 * @throws Error when there is no candidate.
 */
export function selectCheapest<T>(candidates: readonly { prio: number; value: T }[], cost: (x: T) => number): T {
  let best: { prio: number; value: T; cost: number } | null = null;
  for (const c of candidates) {
    const k = cost(c.value);
    if (!best || k < best.cost || (k === best.cost && c.prio > best.prio)) best = { ...c, cost: k };
  }
  if (!best) throw new Error("select: no candidate");
  return best.value;
}
