// A refusal in both languages: the server explains in English, with the particulars (a limit, a
// name); the platform's stable error code (`paiju-error-code`) gives the Chinese sentence beside it.
export const REFUSALS_ZH: Record<string, string> = {
  username_taken: "用户名已被占用",
  bad_credentials: "用户名或密码不对",
  invalid_argument: "输入不符合要求",
  too_many_logins: "同一地址登录太多，请稍候",
  server_busy: "服务器繁忙，请稍候",
  rate_limited: "操作太频繁，请稍候",
  insufficient_funds: "金币不足",
  not_enough_coins: "金币不足",
  cannot_hold: "金币不足以开始这一局",
  coins_changed: "金币已变化，请再试",
  table_playing: "这一桌正在打牌，请等这一局结束",
  table_full: "这一桌已满",
  seat_taken: "这个座位已经有人了",
  seated_elsewhere: "你已坐在另一桌，请先离开",
  already_seated: "你已经坐在这一桌",
  not_seated: "你没有坐在这一桌",
  already_left: "你已离开这一局",
  no_hand: "现在没有进行中的牌局",
  not_in_hand: "你不在这一局中",
  not_your_turn: "还没轮到你",
  illegal_play: "不能这样出牌",
  hand_over: "这一局已经结束",
  stale_version: "牌桌已变化，请再看一眼",
  backend_unavailable: "服务暂时不可用，请稍后再试",
  server_draining: "服务器正在重启，请稍候",
  unknown_name: "找不到",
  unknown_account: "找不到这个账号",
  no_account: "找不到这个账号",
  too_many_streams: "打开的连接太多",
  request_too_large: "请求太大",
  unknown_hand: "找不到这一局",
};

/** "中文 · English" for a refusal with a known code, else the English alone. */
export function bilingual(code: string | undefined, english: string): string {
  const zh = code ? REFUSALS_ZH[code] : undefined;
  return zh ? `${zh} · ${english}` : english;
}
