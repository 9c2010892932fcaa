/**
 * One run of a piece of work per key at a time: whoever asks for a key while its run is under way is
 * given that run's promise, whether it fulfils or rejects; once settled the key is free again, so a
 * failure is never kept. Keys name what the work reads as well as what it is for (an account and the
 * version it was asked under), so that nobody who saw a newer version shares an older run.
 */
export class SingleFlight<T> {
  private readonly flights = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    let flight = this.flights.get(key);
    if (!flight) {
      flight = work().finally(() => this.flights.delete(key));
      this.flights.set(key, flight);
    }
    return flight;
  }
}
