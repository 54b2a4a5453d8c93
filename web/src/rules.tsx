// How each game is played, in Chinese and English: reachable from the lobby and the table, so a
// player never needs anything outside the page to learn a game.
import type { ComponentChildren } from "preact";
import { CardRow } from "./cards";
import { gameTitle } from "./labels";

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="rules-section">
      <h3>{title}</h3>
      {children}
    </section>
  );
}

/** A line of cards as the table draws them, e.g. `AS KS QS`. */
function Cards({ codes }: { codes: string }) {
  return <CardRow cards={codes.split(" ")} small />;
}

function Zhajinhua() {
  return (
    <>
      <p>2–5 players, one deck without jokers, three face-down cards each. Coins only.</p>
      <Section title="牌型 Hands, high to low">
        <ol class="ranks">
          <li>豹子 Trips <Cards codes="KS KH KD" /></li>
          <li>顺金 Straight flush <Cards codes="QH JH TH" /></li>
          <li>金花 Flush <Cards codes="AC 9C 4C" /></li>
          <li>顺子 Straight <Cards codes="9S 8D 7C" /> — AKQ is the highest, 432 the lowest; A23 is no straight.</li>
          <li>对子 Pair <Cards codes="8S 8D KC" /></li>
          <li>单张 High card <Cards codes="AD JS 6C" /></li>
        </ol>
        <p>
          Suits never rank. A 2-3-5 not all of one suit (特殊 235) beats AAA and loses to everything else. Equal hands: whoever
          opened or compared loses.
        </p>
      </Section>
      <Section title="一局 A hand">
        <ul>
          <li>Everyone pays the ante (底注) into the pot; the player after the dealer acts first.</li>
          <li>
            <b>看牌 Look</b> at any time (free). Before looking you play blind (暗注) and pay the stake <i>S</i>; after, you pay
            2<i>S</i>.
          </li>
          <li><b>跟注 Call</b> the stake, <b>加注 raise</b> it (up to 10 antes), or <b>放弃 fold</b>.</li>
          <li>
            <b>比牌 Compare</b> with one player once everyone has acted: the lower hand is out. <b>开牌 Open</b> when two are
            left: it costs twice a call, and the higher hand takes the pot.
          </li>
          <li>The pot is capped at 100 antes: when a payment reaches it, every hand left is opened.</li>
          <li>Bonus (喜钱) from each other player to a winner holding 顺金 (1 ante), 豹子 (2), AAA (5).</li>
          <li>A turn lasts 20 s; one that runs out folds.</li>
        </ul>
      </Section>
      <Section title="底注 The ante in force">
        <p>
          The room sets the lowest ante (自由场 free 10, 高手场 expert 100), but before each hand the ante rises with the fewest
          coins anyone at the table holds: 10,100 or more → 100; 101,000 → 1,000; 1,010,000 → 10,000; 10,100,000 → 100,000.
          The table shows the ante in force and why.
        </p>
      </Section>
    </>
  );
}

function Hunzhan() {
  return (
    <>
      <p>Four players, each alone. Two decks without 3s, 4s and 6s: 21 cards each.</p>
      <Section title="叫主 Trump">
        <p>
          While the cards are dealt, show a 10 to make its suit trump, or a pair of jokers for no trump. A higher one overrides:
          BJ BJ &gt; SJ SJ &gt; 10♠ &gt; 10♥ &gt; 10♣ &gt; 10♦. Nobody declares: the cards are dealt again. The last declarer
          leads.
        </p>
      </Section>
      <Section title="大小 Card order">
        <p>
          Trumps: BJ &gt; SJ &gt; the trump 10 &gt; other 10s &gt; the trump 2 &gt; other 2s &gt; trump A K Q J 9 8 7 5. Plain
          suits: A K Q J 9 8 7 5.
        </p>
      </Section>
      <Section title="出牌 What may be played">
        <ul>
          <li>A single, a pair <Cards codes="9S 9S" />, or a tractor of pairs next to each other <Cards codes="9S 9S JS JS" />.</li>
          <li>Follow the led suit and shape while you can; void, play anything, trumps included.</li>
          <li>有分必须要管: if the trick holds points and you can win it, you must.</li>
          <li>不能主动贴分: otherwise, play no point card you could keep.</li>
        </ul>
      </Section>
      <Section title="计分 Points and coins">
        <p>
          5 = 5 points, 10 and K = 10, each joker = 10 (240 in all). Your result is your points − 60; each 5 points is worth the
          room's stake in coins, and winners pay the house a 2% fee. Leaving mid-hand (逃跑) costs three times what you were
          short of 60.
        </p>
      </Section>
    </>
  );
}

const VARIANTS: [string, string, string][] = [
  ["盐城 yancheng", "♣ < ♦ < ♠ < ♥ < SJ对 < BJ对 < 红5对 < 回头望", "回头望, 暗炒 (blind declaring), 上天入地"],
  ["扬州 yangzhou", "♦ < ♣ < ♥ < ♠ < SJ对 < BJ对 < 红5对", "扛旗, plain tractors skip the level rank"],
  ["扬中 yangzhong", "as 扬州", "as 扬州; a trump 5-10-K forces nothing"],
  ["南通 nantong", "as 扬州, then 回头望", "回头望, J到底, J and K must be played"],
];

function Chaodipi() {
  return (
    <>
      <p>Four players in two teams (across the table). Two decks: 25 cards each and 8 in the kitty (底牌).</p>
      <Section title="级牌与主 Level and trump">
        <p>
          Each team climbs from level 2 to A; the banker's team's level is this hand's level rank. 5♥ (红5), both jokers and
          every level card are always trump: 5♥ &gt; BJ &gt; SJ &gt; the trump suit's level card &gt; other level cards &gt;
          the trump suit.
        </p>
        <p>
          While dealing, show a level card to name trump (亮主); a higher pair overrides it (反主). The banker takes the kitty
          and buries 8; the others may then rob it (抄底) with a higher pair, as often as they can.
        </p>
      </Section>
      <Section title="出牌 Playing">
        <ul>
          <li>Singles, pairs, tractors <Cards codes="7C 7C 8C 8C" />, and 5-10-K <Cards codes="5S TS KS" /> (the trump one is the top play).</li>
          <li>Follow suit and shape while you can; void, discard or trump. A throw (甩牌) that another hand can beat fails and costs 10 points a card.</li>
        </ul>
      </Section>
      <Section title="计分 Points">
        <p>
          5 = 5, 10 and K = 10 (200 in all). The attackers collect points; with the last trick they add the kitty's points
          (×2, or ×4 when the last trick is won with a pair or tractor). 0 points: the banker side goes up 3 levels; 5–35: 2;
          40–75: 1. At 80 the attackers take the bank, and go up a level for every 40 beyond it.
        </p>
      </Section>
      <Section title="地区玩法 The four variants">
        <table class="rules-variants">
          <thead>
            <tr>
              <th>Variant</th>
              <th>Declarations, low → high</th>
              <th>Own rules</th>
            </tr>
          </thead>
          <tbody>
            {VARIANTS.map(([name, order, own]) => (
              <tr key={name}>
                <td>{name}</td>
                <td>{order}</td>
                <td>{own}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}

const RULES: Record<string, () => preact.JSX.Element> = { zhajinhua: Zhajinhua, hunzhan: Hunzhan, chaodipi: Chaodipi };

/** The rules of ``game`` over the page, closed by its button or a click outside. */
export function RulesDialog({ game, onClose }: { game: string; onClose: () => void }) {
  const Body = RULES[game];
  return (
    <div class="modal-back" onClick={onClose}>
      <div class="modal rules" data-testid="rules" data-game={game} onClick={(e) => e.stopPropagation()}>
        <h2>{gameTitle(game)} 规则 Rules</h2>
        <div class="rules-body">{Body ? <Body /> : <p>No rules written for {game} yet.</p>}</div>
        <div class="buttons">
          <button class="primary" data-testid="rules-close" onClick={onClose}>
            知道了 Got it
          </button>
        </div>
      </div>
    </div>
  );
}
