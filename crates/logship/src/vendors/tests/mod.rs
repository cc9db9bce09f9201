//! Tests that run over every vendor: what each must do alike (write the event id under
//! its name, or none; never make up a logger; keep every body valid), with the names
//! each vendor folder states in its `tests::FACTS`.

mod truncation;
mod unique_names;

use crate::capture::record::{Level, Record};
use crate::config::Vendor;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::{sample, with_endpoint, SAMPLE_ID};
use crate::vendors::{prefer_json, test_facts};

#[test]
fn every_vendor_writes_the_event_id_under_its_name_and_none_with_event_id_off() {
    for &vendor in Vendor::ALL {
        let name = test_facts(vendor).id_marker;
        for json in [false, true] {
            let mut c = with_endpoint(vendor, "http://intake:9");
            prefer_json(&mut c, json);
            for on in [true, false] {
                c.event_id = on;
                let codec = Codec::new(&c).unwrap();
                let body = String::from_utf8_lossy(&codec.encode(&[sample()])).into_owned();
                assert_eq!(
                    body.contains(SAMPLE_ID),
                    on,
                    "{vendor:?} event_id={on}: {body}"
                );
                assert_eq!(body.contains(name), on, "{vendor:?} event_id={on}: {body}");
            }
        }
    }
}

#[test]
fn an_event_without_a_logger_gets_no_made_up_one_and_every_body_stays_valid_json() {
    for &vendor in Vendor::ALL {
        let facts = test_facts(vendor);
        let key = facts.logger_key;
        let mut c = with_endpoint(vendor, "http://intake:9");
        prefer_json(&mut c, true);
        let codec = Codec::new(&c).unwrap();
        for target in ["", "app.db"] {
            let mut r = Record::new(Level::Warn, target);
            r.message("m").field("k", "v");
            // Twice: a body of several events keeps its commas right too.
            let body = codec.encode(&[r.clone(), r]);
            let text = String::from_utf8_lossy(&body).into_owned();
            let docs: Result<Vec<serde_json::Value>, _> =
                serde_json::Deserializer::from_slice(&body)
                    .into_iter()
                    .collect();
            assert!(docs.is_ok(), "{vendor:?}, target {target:?}: {text}");
            let named = format!("{key}\"app.db\"");
            if target.is_empty() {
                // A body shape that requires the member keeps it, with an empty name.
                if !facts.logger_always {
                    assert!(!text.contains(key), "{vendor:?}: {text}");
                }
            } else {
                assert!(text.contains(&named), "{vendor:?}: {text}");
            }
        }
    }
}
