/// A store that can read its server's health (`HealthSignal`): one cheap read, called at most
/// about once a second per process by the throttle and by `rederive health`.
package protocol StoreHealthReading: AnyObject {
    /// The signals this engine has, measured now (or why one cannot be measured).
    func readHealth() throws(RederiveError) -> HealthReading
}
