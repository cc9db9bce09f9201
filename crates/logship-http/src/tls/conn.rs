//! One accepted connection, plain or TLS, and the server side of the TLS handshake.
//!
//! Must never: block without the socket's own timeouts bounding it, or share a TLS
//! connection between threads (a clone is `Rc`-shared and stays on its thread).

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::rc::Rc;
use std::sync::Arc;

use rustls::{ServerConnection, StreamOwned};

use super::server::TlsServer;

/// One accepted connection: plain TCP, or TLS over it. Clones share the connection (the
/// reading and the writing half of one connection thread), so a TLS clone is `Rc`-shared
/// and never leaves its thread.
pub enum Conn {
    Plain(TcpStream),
    Tls(Rc<RefCell<StreamOwned<ServerConnection, TcpStream>>>),
}

impl Conn {
    /// A second handle on the same connection.
    pub fn try_clone(&self) -> io::Result<Conn> {
        Ok(match self {
            Conn::Plain(s) => Conn::Plain(s.try_clone()?),
            Conn::Tls(s) => Conn::Tls(Rc::clone(s)),
        })
    }

    /// Shuts the connection down (TLS: sends `close_notify` first when writing ends).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.shutdown(how),
            Conn::Tls(s) => {
                let mut s = s.borrow_mut();
                if how != Shutdown::Read {
                    s.conn.send_close_notify();
                    let _ = s.flush();
                }
                s.sock.shutdown(how)
            }
        }
    }

    /// Runs `f` on the TCP socket underneath (for socket options such as linger).
    pub fn with_socket<R>(&self, f: impl FnOnce(&TcpStream) -> R) -> R {
        match self {
            Conn::Plain(s) => f(s),
            Conn::Tls(s) => f(&s.borrow().sock),
        }
    }

    /// Sets the read timeout of the socket underneath.
    pub fn set_read_timeout(&self, d: Option<std::time::Duration>) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.set_read_timeout(d),
            Conn::Tls(s) => s.borrow().sock.set_read_timeout(d),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.borrow_mut().read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.borrow_mut().write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.borrow_mut().flush(),
        }
    }
}

/// Runs the TLS handshake on `tcp` (bounded by the socket's timeouts); the error says why
/// it failed (the client sent plain HTTP, refused our certificate, sent no certificate).
pub fn accept(server: &TlsServer, mut tcp: TcpStream) -> Result<Conn, String> {
    let mut conn = ServerConnection::new(Arc::clone(&server.config)).map_err(|e| e.to_string())?;
    while conn.is_handshaking() {
        match conn.complete_io(&mut tcp) {
            Ok((0, 0)) if conn.wants_read() => {
                return Err("the client closed the connection during the handshake".into())
            }
            Ok(_) => {}
            Err(e) => {
                // Let the client read the alert rustls queued, if any: send it, stop
                // writing, and read what the client still sends (its request, in TLS 1.3
                // where it finished its side first) so that closing does not reset the
                // connection before the alert is read.
                let _ = conn.write_tls(&mut tcp);
                let _ = tcp.shutdown(Shutdown::Write);
                let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(1)));
                let mut sink = [0u8; 8192];
                let mut drained = 0usize;
                while drained < 1 << 20 {
                    match tcp.read(&mut sink) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => drained += n,
                    }
                }
                return Err(e.to_string());
            }
        }
    }
    Ok(Conn::Tls(Rc::new(RefCell::new(StreamOwned::new(
        conn, tcp,
    )))))
}
