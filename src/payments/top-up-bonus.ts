// payments.bonus_tiers: a top-up of at least a tier's `from` earns that tier's percent as a
// separate `bonus` row (the highest tier reached applies), rounded down to a unit.
/** `tiers` highest `from` first (as config/load.ts sorts them). */
export function tierBonusUnits(topupUnits: bigint, tiers: readonly { readonly fromUnits: bigint; readonly basisPoints: bigint }[]): bigint {
  const tier = tiers.find((candidate) => topupUnits >= candidate.fromUnits);
  return tier ? (topupUnits * tier.basisPoints) / 10_000n : 0n;
}
