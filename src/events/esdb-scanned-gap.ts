/**
 * The stretch of $all after this project's last event that a read has already looked through and found
 * none of ours in. Positions only grow and a read sees only committed records, so nothing of ours can
 * appear inside it later: a read starting anywhere inside it may start at its end. One stretch is kept,
 * the newest, which is where the projector, /health and /metrics all read.
 */
export class ScannedGap {
  private from = 0n;
  private to = -2n;

  /** Where a read after `position` may start: the end of the stretch when `position` lies inside it. */
  resumeFrom(position: bigint): bigint {
    return position >= this.from && position <= this.to ? this.to : position;
  }

  /** The end of the stretch when `position` lies inside it, else null. */
  endFrom(position: bigint): bigint | null {
    return position >= this.from && position <= this.to ? this.to : null;
  }

  /** A read found nothing of ours after `from` up to `to`, inclusive. */
  scanned(from: bigint, to: bigint): void {
    if (from >= this.from && from <= this.to) this.to = to > this.to ? to : this.to;
    else if (to > this.to) {
      this.from = from;
      this.to = to;
    }
  }
}
