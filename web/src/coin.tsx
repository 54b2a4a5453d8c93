// A coin drawn in CSS: an emoji coin (🪙) needs a colour emoji font, which many machines lack
// (they draw an empty box in its place).
export function CoinIcon() {
  return <span class="coin-icon" aria-hidden="true" />;
}
