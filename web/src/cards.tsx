// Cards drawn with CSS and text only: rank and suit in the corners, the suit large in the middle,
// red hearts and diamonds, black spades and clubs, the two jokers in their own colours.
import type { JSX } from "preact";

export const SUITS: Record<string, { symbol: string; red: boolean; name: string }> = {
  S: { symbol: "♠", red: false, name: "spades" },
  H: { symbol: "♥", red: true, name: "hearts" },
  C: { symbol: "♣", red: false, name: "clubs" },
  D: { symbol: "♦", red: true, name: "diamonds" },
};

export function rankLabel(rank: string): string {
  return rank === "T" ? "10" : rank;
}

/** Card notation ("AS KD BJ") to its cards; an empty or missing text is no cards. */
export function cardsOf(text: string | null | undefined): string[] {
  return text ? text.split(/\s+/).filter(Boolean) : [];
}

/** A short readable form of a card, e.g. "10♥" or "大王". */
export function cardText(code: string): string {
  if (code === "BJ") return "大王";
  if (code === "SJ") return "小王";
  const suit = SUITS[code[1]];
  return `${rankLabel(code[0])}${suit ? suit.symbol : code[1]}`;
}

/** A readable form of an action's card notation: "play 5H 5H" -> "play 5♥ 5♥". */
export function prettyCards(text: string): string {
  return text.replace(/\b([2-9TJQKA][SHCD]|SJ|BJ)\b/g, (code) => cardText(code));
}

interface CardProps {
  code: string;
  selected?: boolean;
  small?: boolean;
  onClick?: (event: MouseEvent) => void;
  onContextMenu?: (event: MouseEvent) => void;
  index?: number;
}

export function Card({ code, selected, small, onClick, onContextMenu, index }: CardProps): JSX.Element {
  const classes = ["card"];
  if (small) classes.push("small");
  if (selected) classes.push("selected");
  if (onClick) classes.push("clickable");
  const common = {
    "data-card": code,
    "data-index": index,
    onClick,
    onContextMenu,
    title: cardText(code),
  };
  if (code === "BJ" || code === "SJ") {
    classes.push("joker", code === "BJ" ? "big-joker" : "small-joker");
    return (
      <div class={classes.join(" ")} {...common}>
        <span class="joker-word">JOKER</span>
        <span class="joker-star">{code === "BJ" ? "★" : "☆"}</span>
        <span class="joker-name">{code === "BJ" ? "大王" : "小王"}</span>
      </div>
    );
  }
  const suit = SUITS[code[1]];
  classes.push(suit?.red ? "red" : "black");
  return (
    <div class={classes.join(" ")} {...common}>
      <span class="corner top">
        <b>{rankLabel(code[0])}</b>
        <i>{suit?.symbol}</i>
      </span>
      <span class="pip">{suit?.symbol}</span>
      <span class="corner bottom">
        <b>{rankLabel(code[0])}</b>
        <i>{suit?.symbol}</i>
      </span>
    </div>
  );
}

/** The back of a card someone else holds. */
export function CardBack({ small }: { small?: boolean }): JSX.Element {
  return <div class={small ? "card back small" : "card back"} data-back="1" />;
}

export function CardRow({ cards, small }: { cards: string[]; small?: boolean }): JSX.Element {
  return (
    <div class="card-row">
      {cards.map((code, i) => (
        <Card key={`${code}-${i}`} code={code} small={small} />
      ))}
    </div>
  );
}
