use super::*;

struct Fixed;

impl Words for Fixed {
    fn words(&self, arg: Arg, prefix: &str, most: usize) -> Vec<String> {
        let all: &[&str] = match arg {
            Arg::User => &["alice", "alfred", "bob", "al\u{1b}[31m"],
            Arg::Policy => &["fifo", "sjf", "srtf"],
            _ => &[],
        };
        all.iter()
            .filter(|w| w.starts_with(prefix))
            .take(most)
            .map(|w| w.to_string())
            .collect()
    }
}

#[test]
fn a_command_is_its_name_an_alias_or_the_one_it_begins() {
    assert_eq!(verb_of("idle").unwrap().name, "idle");
    assert_eq!(verb_of("q").unwrap().name, "quit");
    assert_eq!(verb_of("pol").unwrap().name, "policy");
    assert_eq!(verb_of("IDLE").unwrap().name, "idle");
    let e = verb_of("p").unwrap_err().to_string();
    assert!(e.contains("partly, policy, placement"), "{e}");
    assert!(verb_of("zzz")
        .unwrap_err()
        .to_string()
        .contains("no command 'zzz'"));
}

#[test]
fn a_line_parses_to_its_command_and_argument_or_says_what_is_missing() {
    let (v, a) = parse(":user  alice ").unwrap();
    assert_eq!((v.name, a.as_str()), ("user", "alice"));
    assert_eq!(parse("idle").unwrap().0.name, "idle");
    assert_eq!(parse("goto day 3 14:00").unwrap().1, "day 3 14:00");
    assert!(parse("user").unwrap_err().to_string().contains("NAME"));
    assert!(parse("idle now")
        .unwrap_err()
        .to_string()
        .contains("takes nothing"));
    assert_eq!(parse("filter").unwrap().1, "");
}

#[test]
fn tab_completes_commands_then_their_arguments_as_far_as_they_agree() {
    assert_eq!(complete("id", &Fixed), ("idle".into(), vec!["idle".into()]));
    assert_eq!(complete("us", &Fixed).0, "user");
    assert_eq!(complete("use", &Fixed).1, vec!["users", "user"]);
    assert_eq!(complete("job", &Fixed).0, "job ");
    assert_eq!(
        complete("user al", &Fixed),
        ("user al".into(), vec!["alice".into(), "alfred".into()])
    );
    assert_eq!(complete("user ali", &Fixed).0, "user alice");
    assert_eq!(complete("policy s", &Fixed).0, "policy s");
    assert_eq!(complete("policy sj", &Fixed).0, "policy sjf");
    assert_eq!(complete("goto day", &Fixed), ("goto day".into(), vec![]));
    assert_eq!(complete("user zed", &Fixed).1, Vec::<String>::new());
    assert_eq!(common_prefix(&["añb".into(), "añc".into()]), "añ");
}
