//! A local TCP port that refuses every connection for as long as its value lives: a socket bound to
//! it and never listening. A port bound by the OS and let go is not that: the browser tests run side
//! by side in one process, and another test's server (the harness's sites, an application server,
//! Chromium) may be given the same port a moment later, so "nothing listens there" became a page
//! that answers. Bound and kept, the port is nobody else's, and a connection to it is refused.

use tokio::net::TcpSocket;

pub struct RefusingPort {
    pub port: u16,
    _v4: TcpSocket,
    /// `localhost` may resolve to ::1 first: that side is held too where the machine has IPv6.
    _v6: Option<TcpSocket>,
}

impl RefusingPort {
    pub fn new() -> RefusingPort {
        let v4 = TcpSocket::new_v4().expect("a TCP socket");
        v4.bind("127.0.0.1:0".parse().unwrap()).expect("bind a port on 127.0.0.1");
        let port = v4.local_addr().expect("the bound port").port();
        let v6 = TcpSocket::new_v6().ok().filter(|s| s.bind(format!("[::1]:{port}").parse().unwrap()).is_ok());
        RefusingPort { port, _v4: v4, _v6: v6 }
    }
}

#[test]
fn a_refusing_port_refuses_connections_and_no_server_can_take_it_while_it_lives() {
    let held = RefusingPort::new();
    let refused = std::net::TcpStream::connect(("127.0.0.1", held.port)).expect_err("a connection was accepted");
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused, "{refused}");
    let taken = std::net::TcpListener::bind(("127.0.0.1", held.port)).expect_err("another server took the port");
    assert_eq!(taken.kind(), std::io::ErrorKind::AddrInUse, "{taken}");
    let port = held.port;
    drop(held);
    assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok(), "the port stayed taken after the value ended");
}
