// Where things sit around the felt: the viewer at the bottom, the next seat to act on the right,
// going round counter-clockwise as the games are played. Each other player has a zone hung from
// the felt's rim at their place that grows toward the middle: their panel at the rim, then their
// cards, then the cards they put into a trick. One box laid out after another, not three spots
// placed on their own, so that nothing of a player (a card just played, the 庄 badge) can ever
// cover another part of them, whatever the width of the screen.
export type Side = "top" | "bottom" | "left" | "right";

/** The ellipse the zones hang from, in percent of the felt from its middle: just inside the rim. */
const RIM = { rx: 48, ry: 45 };

/** How a zone hangs from its point on the rim: by the edge that faces the rim. */
const HANG: Record<Side, string> = {
  top: "translate(-50%, 0)",
  bottom: "translate(-50%, -100%)",
  left: "translate(0, -50%)",
  right: "translate(-100%, -50%)",
};

function angleOf(seatCount: number, place: number): number {
  return Math.PI / 2 - (place * 2 * Math.PI) / seatCount;
}

/** The side of the felt a place sits at: top and bottom for the places well above or below the
 * middle, left or right for the rest. */
export function sideOf(seatCount: number, place: number): Side {
  const angle = angleOf(seatCount, place);
  const up = Math.sin(angle);
  if (up < -0.6) return "top";
  if (up > 0.6) return "bottom";
  return Math.cos(angle) >= 0 ? "right" : "left";
}

/** The position of a place's zone on the felt. */
export function zoneStyle(seatCount: number, place: number): Record<string, string> {
  const angle = angleOf(seatCount, place);
  return {
    left: `${(50 + RIM.rx * Math.cos(angle)).toFixed(2)}%`,
    top: `${(50 + RIM.ry * Math.sin(angle)).toFixed(2)}%`,
    transform: HANG[sideOf(seatCount, place)],
  };
}
