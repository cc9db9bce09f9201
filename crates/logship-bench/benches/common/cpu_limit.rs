//! A CPU budget for one benchmarked process: a cgroup with a CPU quota, as a Kubernetes
//! pod's `limits.cpu` gives each replica.
//!
//! Why it exists: a consumer group scales out when each member is bound by its own
//! budget (its pod's CPU limit, its node), not by the machine they share. On a 2-core
//! machine that also runs the broker and the intake, unlimited members are bound by the
//! machine: a second one can only share the same cores. With a quota per member, the
//! group's rate shows whether anything *shared* (the broker, the partitions' spread, the
//! group protocol) keeps a second member from adding its budget. Must never: be applied
//! silently (every row says its limit), or leave a cgroup behind.
//!
//! cgroup v1 (`/sys/fs/cgroup/cpu`, `cpu.cfs_quota_us`) or v2 (`cpu.max`); writing them
//! needs root. Where neither can be written, [`CpuLimit::new`] says why and the rows are
//! skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The CFS period every quota is a share of.
const PERIOD_US: u64 = 100_000;

/// A cgroup with a CPU quota; removed when dropped (once its processes have ended).
pub struct CpuLimit {
    dir: PathBuf,
}

impl CpuLimit {
    /// A cgroup named `name` whose processes get at most `cores` CPUs together; `Err`
    /// says why none could be made.
    pub fn new(name: &str, cores: f64) -> Result<CpuLimit, String> {
        let quota = (cores * PERIOD_US as f64).round() as u64;
        let v1 = Path::new("/sys/fs/cgroup/cpu");
        let v2 = Path::new("/sys/fs/cgroup");
        let (dir, files) = if v1.join("cpu.cfs_quota_us").exists() {
            (
                v1.join(name),
                vec![
                    ("cpu.cfs_period_us", PERIOD_US.to_string()),
                    ("cpu.cfs_quota_us", quota.to_string()),
                ],
            )
        } else if std::fs::read_to_string(v2.join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|c| c == "cpu"))
        {
            // The controller must be on for the children of the root.
            let _ = std::fs::write(v2.join("cgroup.subtree_control"), "+cpu");
            (
                v2.join(name),
                vec![("cpu.max", format!("{quota} {PERIOD_US}"))],
            )
        } else {
            return Err("no cgroup CPU controller (cgroup v1 `cpu` or v2 `cpu.max`)".into());
        };
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let limit = CpuLimit { dir };
        for (file, value) in files {
            let path = limit.dir.join(file);
            std::fs::write(&path, value).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(limit)
    }

    /// `program` run inside this cgroup: a shell moves itself in, then becomes it, so
    /// every thread the program starts is under the quota from its first instruction.
    pub fn command(&self, program: &Path) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!(
                "echo $$ > '{}' && exec \"$0\" \"$@\"",
                self.dir.join("cgroup.procs").display()
            ))
            .arg(program);
        c
    }

    /// How many CFS periods the cgroup's processes were throttled in (they wanted more
    /// than the quota): a limit that never throttled did not bound anything.
    pub fn throttled_periods(&self) -> u64 {
        let stat = std::fs::read_to_string(self.dir.join("cpu.stat")).unwrap_or_default();
        // `nr_throttled N` in both versions.
        stat.lines()
            .find_map(|l| l.strip_prefix("nr_throttled "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for CpuLimit {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}
