// Where things sit around the felt: the viewer at the bottom, the next seat to act on the right,
// going round counter-clockwise as the games are played. Three rings: the player panels, their
// cards, and the cards they put into a trick.
const RINGS = {
  panel: { rx: 42, ry: 40 },
  cards: { rx: 27, ry: 20 },
  trick: { rx: 20, ry: 13 },
};

export function spot(seatCount: number, place: number, ring: keyof typeof RINGS): Record<string, string> {
  const angle = Math.PI / 2 - (place * 2 * Math.PI) / seatCount;
  const { rx, ry } = RINGS[ring];
  return {
    left: `${(50 + rx * Math.cos(angle)).toFixed(2)}%`,
    top: `${(50 + ry * Math.sin(angle)).toFixed(2)}%`,
  };
}
