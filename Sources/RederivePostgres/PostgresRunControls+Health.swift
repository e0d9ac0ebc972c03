import RederiveCore

extension PostgresRunControls: StoreHealthReading {
    /// The server's health on the control's own session, which the governor alone uses about
    /// once a second: on the store's reader a health read would wait for the batch being read
    /// ahead.
    func readHealth() throws(RederiveError) -> HealthReading {
        try io("read the server's health") { try PostgresStore.readHealth(on: session) }
    }
}
