//! The Java lab's configurations: the six ways for a Log4j2 service to ship its
//! logs, in its order, and the calibration (g), each with its Log4j2 file and how its
//! events leave the service.

/// How a configuration's events leave the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shipping {
    /// The stock appender posts to the intake itself.
    Direct,
    /// The stock `Http` appender posts to `logship ship --listen http://`.
    ListenHttp,
    /// The stock `Socket` appender writes to `logship ship --listen tcp://`.
    ListenTcp,
    /// The `File` appender writes, `logship ship --follow` ships.
    Follow,
    /// Nothing ships (the file alone, or logging off).
    Nothing,
    /// The stock `Socket` appender writes to a sink that discards (calibration).
    Discard,
    /// logship's own `<Logship>` appender (the jar, `--java-jar`) ships from inside the
    /// service.
    InProcess,
}

/// One of the lab's configurations.
#[derive(Clone, Copy, Debug)]
pub struct Configuration {
    /// `a` to `f`, as the issue names them; `g`, the calibration; `h`, the in-process
    /// appender.
    pub key: char,
    /// Short name for tables and charts.
    pub name: &'static str,
    /// What it is, in a sentence.
    pub what: &'static str,
    /// The Log4j2 configuration file in `lab/java/`.
    pub(super) xml: &'static str,
    pub(super) shipping: Shipping,
}

/// The six configurations in its order, the calibration (g), and (h): logship's
/// in-process appender (issue 31), run when named (`--java-configs ...,h`).
pub const CONFIGURATIONS: [Configuration; 8] = [
    Configuration {
        key: 'a',
        name: "(a) Http to vendor",
        what: "stock Http appender straight to the intake (the problem)",
        xml: "log4j2-http.xml",
        shipping: Shipping::Direct,
    },
    Configuration {
        key: 'b',
        name: "(b) Http to logship",
        what: "stock Http appender to logship ship --listen http:// (only the URL changed)",
        xml: "log4j2-http.xml",
        shipping: Shipping::ListenHttp,
    },
    Configuration {
        key: 'c',
        name: "(c) Socket to logship",
        what: "stock Socket appender (JsonLayout) to logship ship --listen tcp://",
        xml: "log4j2-socket.xml",
        shipping: Shipping::ListenTcp,
    },
    Configuration {
        key: 'd',
        name: "(d) File + follow",
        what: "stock File appender (JsonLayout) and logship ship --follow on the file",
        xml: "log4j2-file.xml",
        shipping: Shipping::Follow,
    },
    Configuration {
        key: 'e',
        name: "(e) File only",
        what: "stock File appender, nothing shipping (what writing alone costs)",
        xml: "log4j2-file.xml",
        shipping: Shipping::Nothing,
    },
    Configuration {
        key: 'f',
        name: "(f) logging off",
        what: "Log4j2 level off (the ceiling)",
        xml: "log4j2-off.xml",
        shipping: Shipping::Nothing,
    },
    Configuration {
        key: 'g',
        name: "(g) Socket to a sink",
        what: "stock Socket appender (JsonLayout) into a TCP sink that reads and discards (the ceiling of (c): Log4j2's own cost)",
        xml: "log4j2-socket.xml",
        shipping: Shipping::Discard,
    },
    Configuration {
        key: 'h',
        name: "(h) Logship in-process",
        what: "logship's own <Logship> appender (the jar) shipping from inside the service",
        xml: "log4j2-logship.xml",
        shipping: Shipping::InProcess,
    },
];
