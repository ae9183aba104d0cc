//! The daily spend cap, the parts that are not IO: which UTC day a moment falls
//! in and what a request reserves. The ledger itself lives in D1 (the glue):
//! one conditional statement reserves only if reserved + spent + this request's
//! upper bound stays within the day's cap; settling charges actual usage,
//! releases the rest, and is keyed by request id so a retry never charges twice.

use serde::Serialize;

/// The UTC day (`YYYY-MM-DD`) of a unix time in seconds.
pub fn utc_day(unix_seconds: u64) -> String {
    // Howard Hinnant's days-to-civil algorithm.
    let days = (unix_seconds / 86_400) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// A day's ledger as `GET /admin/spend` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    pub day: String,
    pub cap_neurons: f64,
    pub cap_usd: f64,
    /// One client's share of the cap (`DAILY_CLIENT_SHARE`).
    pub client_cap_neurons: f64,
    pub reserved_neurons: f64,
    pub spent_neurons: f64,
    pub spent_usd: f64,
    /// Of what was spent, the embeddings of ingests (a line of their own).
    pub ingest_neurons: f64,
    pub requests: u32,
    /// What each Workers AI request reserves (its upper bound).
    pub request_bound_neurons: f64,
}

#[cfg(test)]
mod tests {
    use super::utc_day;

    #[test]
    fn utc_days() {
        assert_eq!(utc_day(0), "1970-01-01");
        assert_eq!(utc_day(951_782_400), "2000-02-29");
        assert_eq!(utc_day(1_798_761_599), "2026-12-31");
        assert_eq!(utc_day(1_798_761_600), "2027-01-01");
    }
}
