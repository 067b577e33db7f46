//! `Op::Request` / `Op::Reply`: a message that names the channel its answer goes to, and the
//! reader's answer there (schbench's worker list and its message thread's `fpost` of each
//! listed worker).

mod common;

use common::*;
use schedlab_sim::*;

/// One CPU: a server answering a client over channel 0, answers on channel 1 (pipes).
fn pair(client: Vec<Op>) -> SimConfig {
    let server = task(
        "server",
        0,
        SchedPolicy::Normal,
        vec![Op::Recv(0), Op::Run(Some(Dist::Fixed(10 * US))), Op::Reply],
    );
    let client = task("client", 0, SchedPolicy::Normal, client);
    let mut c = cfg(1, 1000, 10 * MS, vec![server, client]);
    c.channels = vec![Channel::unbounded("q"), Channel::unbounded("ans")];
    c
}

#[test]
fn a_pipe_request_is_answered_on_the_channel_it_names() {
    // Request, wait for the answer, 10 µs of its own: a round trip is 20 µs of CPU.
    let c = pair(vec![
        Op::Request { to: 0, reply_to: 1 },
        Op::Recv(1),
        Op::Run(Some(Dist::Fixed(10 * US))),
    ]);
    assert!(c.check().is_ok(), "{:?}", c.check());
    for v in ["cfs-6.1", "eevdf-6.19"] {
        let out = run(&c, v);
        let (server, client) = (&out.tasks[0], &out.tasks[1]);
        // Every request read is answered and every answer read: the two alternate.
        assert!(server.reads > 400, "{v}: {} requests", server.reads);
        assert!(
            client.reads.abs_diff(server.reads) <= 1,
            "{v}: {} answers for {} requests",
            client.reads,
            server.reads
        );
    }
}

#[test]
fn a_request_channel_is_written_only_by_requests() {
    let ok = pair(vec![
        Op::Request { to: 0, reply_to: 1 },
        Op::Recv(1),
        Op::Run(Some(Dist::Fixed(US))),
    ]);
    assert!(ok.check().is_ok());
    // A plain send to the request channel would leave a message without an answer's channel.
    let mut c = ok.clone();
    c.tasks[1].program.push(Op::Send(0));
    let err = c.check().unwrap_err();
    assert!(err.contains("request"), "{err}");
    // Nor a reply channel (a request's answer) nor a polled pipe.
    let mut c = ok.clone();
    c.tasks[1].program[0] = Op::Request { to: 0, reply_to: 0 };
    assert!(c.check().is_err());
    let mut c = ok.clone();
    c.channels[0].poll = true;
    assert!(c.check().is_err());
    let mut c = ok;
    c.tasks[1].program[0] = Op::Request { to: 0, reply_to: 7 };
    assert!(c.check().is_err());
}

#[test]
fn a_reply_answers_only_the_request_just_read() {
    // The server reads a request, then a plain message on channel 2 (a ticker's), then
    // replies: its last read named no answer's channel, so the reply writes nothing and the
    // client waits for ever.
    let mut c = pair(vec![
        Op::Request { to: 0, reply_to: 1 },
        Op::Recv(1),
        Op::Run(Some(Dist::Fixed(US))),
    ]);
    c.tasks[0].program = vec![
        Op::Recv(0),
        Op::Recv(2),
        Op::Run(Some(Dist::Fixed(US))),
        Op::Reply,
    ];
    c.tasks.push(task(
        "ticker",
        0,
        SchedPolicy::Normal,
        vec![Op::Send(2), Op::Sleep(Dist::Fixed(MS))],
    ));
    c.channels.push(Channel::unbounded("tick"));
    assert!(c.check().is_ok(), "{:?}", c.check());
    let out = run(&c, "eevdf-6.19");
    assert_eq!(out.tasks[1].reads, 0, "the client got no answer");
    assert_eq!(out.tasks[0].reads, 2, "one request and one tick read");
}
