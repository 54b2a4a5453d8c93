// A table's views reach the page three ways: the Watch stream, Act's reply and GetView. Through
// the web door they travel on separate requests, so they can arrive out of order: the reply to
// the person's last card of a hand can come after the stream's view of the hand already over.
// Taking it then rolled the page back to the hand, and since the stream sends a view only when
// it changes, the page stayed there, without its settlement. The table's version orders them.

/** Keeps the newest table version shown; says whether a view is to be shown. */
export class NewestView {
  private newest: bigint | null = null;

  /** Whether a view of `version` is as new as the one shown, or newer (then it is the newest). */
  take(version: bigint): boolean {
    if (this.newest !== null && version < this.newest) return false;
    this.newest = version;
    return true;
  }
}
