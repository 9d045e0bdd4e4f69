(** * CheckSem: the reflection step (the semantic statement from the real-number goal)

    Logical path [PEProof.CheckSem].  A translated theorem states the claim with the
    functions of [Sem] (its meaning, stated once there).  Its proof is
    [cut REAL; [intro G; ...; pe_reflect K | script]]: the existing scripts prove a real-number
    goal [REAL] printed by peproof/kernel/coq/translate.py (untrusted), and [pe_reflect] proves
    the statement from it:
    - the statement's hypotheses are evaluated ([pe_dec_h]): an undefined one is [False]
      (that case is closed), a defined one is its real relation plus the facts of each
      decision (the exact definedness: [b <> 0], [0 < b], [b = 0 /\ 0 < e], ...);
    - [REAL]'s premises are then proved from those facts ([pe_prem]): a premise stronger than
      SymPy's definedness (the old [0 < b] of a hypothesis's [b ** p]) is NOT implied, and the
      proof fails, as it must;
    - [REAL]'s conclusions and obligations evaluate the statement's conclusions ([pe_goal]):
      each case where an operation would be undefined is refuted from them.
    [pe_reflect_back] is the converse for a refuted claim: from the statement, its real form
    with the conclusions' obligations as premises, on which the negation script runs. *)

From Coq Require Import ZArith Reals Lia Lra.
From PEProof Require Import Defs Sem Check.
Open Scope R_scope.

Lemma osum_eval : forall a b za zb f g, a = IZR za -> b = IZR zb -> (za <= zb + 1)%Z ->
  (forall i, (za <= i <= zb)%Z -> f i = Some (g i)) ->
  osum (Some a) (Some b) f = Some (zsum za zb g).
Proof. intros; subst; rewrite osum_Z; apply osumZ_some; assumption. Qed.

Ltac pe_zof a :=
  lazymatch a with
  | IZR ?z => z
  | _ => match goal with
         | H : IZR ?z = a |- _ => z
         | H : a = IZR ?z |- _ => z
         end
  end.

(** Integer side goals with divisions by literals ([d / 2 - 1]): the quotient's bounds. *)
Ltac pe_zlim :=
  first [ lia
        | match goal with |- context [(?a / ?c)%Z] =>
            let Q := fresh "Q" in let R := fresh "R" in
            pose proof (Z.div_mod a c ltac:(lia));
            pose proof (Z.mod_pos_bound a c ltac:(lia));
            remember (a / c)%Z as Q; remember (a mod c)%Z as R; lia end ].

(** The obligations under a sum's index, at the index [i]. *)
Ltac pe_at i :=
  repeat match goal with
  | H : forall j : Z, (Z.min _ _ <= j < Z.max _ _)%Z -> _ |- _ =>
      let K := fresh "K" in pose proof (H i) as K; clear H;
      first [ specialize (K ltac:(pe_zlim)) | clear K ]
  end.

Ltac pe_eqz := first [ reflexivity | assumption | (symmetry; assumption) ].

(** Integer relations: a [Z] relation and its [IZR] image. *)
Ltac pe_zb :=
  first [ assumption
        | solve [apply lt_IZR; assumption] | solve [apply le_IZR; assumption]
        | solve [apply eq_IZR; assumption]
        | solve [apply IZR_lt; assumption] | solve [apply IZR_le; assumption]
        | solve [f_equal; assumption] | solve [apply IZR_neq; assumption]
        | solve [let E := fresh in intro E;
                 match goal with H : IZR _ <> IZR _ |- _ => apply H; rewrite E; reflexivity end] ].

(** Sums of the goal evaluated: limits integers, range not reversed, every term defined. *)
Ltac pe_sums :=
  repeat match goal with
  | |- context [osum (Some ?a) (Some ?b) ?f] =>
      let za := pe_zof a in let zb := pe_zof b in
      erewrite (osum_eval a b za zb f);
      [ | pe_eqz | pe_eqz | solve [pe_zlim]
        | let i := fresh "i" in let Hi := fresh "Hi" in intros i Hi; cbv beta; pe_at i; pe_val ]
  | |- context [osumZ ?a ?b ?f] =>
      erewrite (osumZ_some a b f);
      [ | solve [pe_zlim]
        | let i := fresh "i" in let Hi := fresh "Hi" in intros i Hi; cbv beta; pe_at i; pe_val ]
  end
with pe_val := pe_dec; pe_sums; pe_dec; reflexivity.

(** Sums of a hypothesis, the same way (its obligations in context). *)
Ltac pe_sums_in H :=
  repeat match type of H with
  | context [osum (Some ?a) (Some ?b) ?f] =>
      let za := pe_zof a in let zb := pe_zof b in
      erewrite (osum_eval a b za zb f) in H;
      [ | pe_eqz | pe_eqz | solve [pe_zlim]
        | let i := fresh "i" in let Hi := fresh "Hi" in intros i Hi; cbv beta; pe_at i; pe_val ]
  | context [osumZ ?a ?b ?f] =>
      erewrite (osumZ_some a b f) in H;
      [ | solve [pe_zlim]
        | let i := fresh "i" in let Hi := fresh "Hi" in intros i Hi; cbv beta; pe_at i; pe_val ]
  end.

(** The decisions of the hypotheses only. *)
Ltac pe_dec_h :=
  pe_cbn; repeat (try solve [pe_absurd];
    match goal with
    | H : False |- _ => contradiction
    | H : context [Req_EM_T ?a ?b] |- _ => destruct (Req_EM_T a b)
    | H : context [Rlt_dec ?a ?b] |- _ => destruct (Rlt_dec a b)
    | H : context [Rle_dec ?a ?b] |- _ => destruct (Rle_dec a b)
    | H : context [(?a <? ?b)%Z] |- _ => destruct (Z.ltb_spec a b)
    end; pe_cbn).

Ltac pe_prem := first [ pe_zb | solve [pe_side] ].

Ltac pe_feed_real K :=
  repeat match type of K with
  | ?A -> _ => let a := fresh "pe_a" in assert (a : A) by pe_prem; specialize (K a)
  end.

Ltac pe_goal := pe_dec; pe_sums; pe_dec; pe_zb.

Ltac pe_destr K := lazymatch type of K with _ /\ _ => decompose [and] K; clear K | _ => idtac end.

Ltac pe_reflect K := pe_cbn; pe_dec_h; pe_feed_real K; pe_destr K; pe_split; pe_goal.

(** The fast path: a statement whose operations are all total (no division, power, root,
    logarithm, ... whose definedness needs a proof) evaluates ([pe_cbn_goal]) to a real
    proposition; when that is, symbol for symbol, the real goal [G] the script proved, [G]
    proves it (the kernel checks the conversion at [Qed]).  Otherwise this fails at once
    (a syntactic comparison, no unification) and the reflection above runs. *)
Ltac pe_same G :=
  pe_cbn_goal;
  let T := type of G in
  lazymatch goal with |- ?U => constr_eq T U; exact G end.

Ltac pe_reflect_exists G :=
  repeat match type of G with
  | exists x, _ => let x := fresh x in destruct G as [x G]; exists x
  end;
  pe_destr G; pe_split; pe_goal.

Ltac pe_feed_sem K :=
  repeat match type of K with
  | ?A -> _ => let a := fresh "pe_a" in assert (a : A) by pe_goal; specialize (K a)
  end.

Ltac pe_reflect_back K :=
  pe_feed_sem K; pe_sums_in K; pe_destr K;
  repeat match goal with H : context [osum _ _ _] |- _ => pe_sums_in H; revert H end;
  repeat match goal with H : context [osumZ _ _ _] |- _ => pe_sums_in H; revert H end;
  intros; pe_dec_h; pe_split; pe_zb.

(** A refuted claim's negation directly at the certified point: the statement specialised
    there, its (closed) premises evaluated and proved, its conclusions evaluated: an undefined
    one is [False] at once, a defined one is refuted by the negation script's [pe_refute]. *)
Ltac pe_sem_prem :=
  first [ solve [pe_point] | solve [pe_goal] | solve [pe_sums; pe_dec; first [ lra | pe_side ]] ].

Ltac pe_sem_feed H :=
  repeat match type of H with
  | ?A -> _ => let a := fresh "pe_a" in assert (a : A) by pe_sem_prem; specialize (H a)
  end.

(** ** Case split (goals without a real form: Piecewise)

    [pe_cases]: every decision of the goal and the hypotheses split ([pe_dec]), then each
    branch closed as an integer goal ([pe_zlia]: the real terms of integers folded back into
    [Z], [lia] with Z's division and remainder) or as a real one ([lra], [nra], [field]). *)
Ltac pe_izr_fold :=
  repeat match goal with
  | |- context [IZR ?a + IZR ?b] => rewrite <- (plus_IZR a b)
  | |- context [IZR ?a - IZR ?b] => rewrite <- (minus_IZR a b)
  | |- context [IZR ?a * IZR ?b] => rewrite <- (mult_IZR a b)
  | |- context [- IZR ?a] => rewrite <- (opp_IZR a)
  | |- context [Int_part (IZR ?a / IZR (Zpos ?p))] => rewrite (Int_part_div a p)
  | H : context [IZR ?a + IZR ?b] |- _ => rewrite <- (plus_IZR a b) in H
  | H : context [IZR ?a - IZR ?b] |- _ => rewrite <- (minus_IZR a b) in H
  | H : context [IZR ?a * IZR ?b] |- _ => rewrite <- (mult_IZR a b) in H
  | H : context [- IZR ?a] |- _ => rewrite <- (opp_IZR a) in H
  | H : context [Int_part (IZR ?a / IZR (Zpos ?p))] |- _ => rewrite (Int_part_div a p) in H
  end.

Ltac pe_zrel :=
  repeat match goal with
  | H : IZR _ = IZR _ |- _ => apply eq_IZR in H
  | H : IZR _ < IZR _ |- _ => apply lt_IZR in H
  | H : IZR _ <= IZR _ |- _ => apply le_IZR in H
  | H : IZR ?a <> IZR ?b |- _ =>
      assert ((a <> b)%Z) by (let E := fresh in intro E; apply H; rewrite E; reflexivity);
      clear H
  | H : ~ IZR ?a < IZR ?b |- _ => apply Rnot_lt_le in H
  | H : ~ IZR ?a <= IZR ?b |- _ => apply Rnot_le_lt in H
  end.

(** Integer variables between 0 and 1 replaced by each value. *)
Ltac pe_small :=
  repeat match goal with
  | H1 : (0 <= ?v)%Z, H2 : (?v <= 1)%Z |- _ =>
      is_var v; destruct (Z.eq_dec v 0); [subst v | assert (v = 1)%Z by lia; subst v]
  end.

Ltac pe_zlia :=
  pe_izr_fold; pe_zrel;
  first [ apply IZR_eq | apply IZR_le | apply IZR_lt | apply IZR_neq | idtac ];
  Z.div_mod_to_equations; first [ lia | nia | solve [pe_small; nia] ].

(** Real branches: each inverse [/ x] of the goal and the hypotheses with [x * / x = 1] (and
    [0 < / x] where [x] is positive), for [nra]; the bases of powers made equal ([field]) and
    a power of [1] evaluated. *)
Ltac pe_rinv :=
  unfold Rdiv in *;
  repeat match goal with
  | |- context [/ ?x] =>
      lazymatch goal with _ : x * / x = 1 |- _ => fail | _ =>
        assert (x * / x = 1) by (field; first [ lra | nra ]);
        try (assert (0 < / x) by (apply Rinv_0_lt_compat; first [ lra | nra ])) end
  | H : context [/ ?x] |- _ =>
      lazymatch goal with _ : x * / x = 1 |- _ => fail | _ =>
        assert (x * / x = 1) by (field; first [ lra | nra ]);
        try (assert (0 < / x) by (apply Rinv_0_lt_compat; first [ lra | nra ])) end
  end.

Lemma rpow_1_base : forall e, rpow 1 e = 1.
Proof. intro e; unfold rpow, Rpower; rewrite ln_1, Rmult_0_r; apply exp_0. Qed.

Ltac pe_rbase :=
  repeat rewrite rpow_mult;
  repeat match goal with
  | |- context [rpow ?a _] =>
      assert_fails (constr_eq a 1); replace a with 1 by (field; first [ lra | nra ])
  | |- context [rpow ?a _] =>
      match goal with |- context [rpow ?b _] =>
        assert_fails (constr_eq a b); replace a with b by (field; first [ lra | nra ]) end
  end;
  rewrite ?rpow_1_base, ?sqrt_1.

(** Facts for [nra]: every power positive, every root of a positive number positive, the
    products of two positive atoms positive, and a comparison of two quotients of one positive
    numerator ([a / x < a / y]) turned into the comparison of the denominators. *)
Lemma div_lt_swap : forall a x y, 0 < a -> 0 < x -> 0 < y -> a / x < a / y -> y < x.
Proof.
  intros a x y Ha Hx Hy H; apply Rnot_le_lt; intro Hle; apply (Rlt_not_le _ _ H).
  unfold Rdiv; apply Rmult_le_compat_l; [lra|]; destruct Hle as [Hlt|E];
    [left; apply Rinv_lt_contravar; nra | subst; lra].
Qed.

Ltac pe_pos_facts :=
  repeat match goal with
  | |- context [rpow ?b ?e] =>
      lazymatch goal with _ : 0 < rpow b e |- _ => fail | _ => pose proof (rpow_pos b e) end
  | H : context [rpow ?b ?e] |- _ =>
      lazymatch goal with _ : 0 < rpow b e |- _ => fail | _ => pose proof (rpow_pos b e) end
  end;
  repeat match goal with
  | H : context [sqrt ?x] |- _ =>
      lazymatch goal with _ : 0 < sqrt x |- _ => fail | _ =>
        assert (0 < sqrt x) by (apply sqrt_lt_R0; lra) end
  | |- context [sqrt ?x] =>
      lazymatch goal with _ : 0 < sqrt x |- _ => fail | _ =>
        assert (0 < sqrt x) by (apply sqrt_lt_R0; lra) end
  | H : ?a / ?x < ?a / ?y |- _ =>
      apply div_lt_swap in H; [ | lra | lra | lra ]
  end.

Ltac pe_prod_hints :=
  repeat match goal with
  | H1 : 0 < ?a, H2 : 0 < ?b |- _ =>
      lazymatch a with _ * _ => fail | _ => idtac end;
      lazymatch b with _ * _ => fail | _ => idtac end;
      assert_fails (constr_eq a b);
      lazymatch goal with
      | _ : 0 < a * b |- _ => fail | _ : 0 < b * a |- _ => fail
      | _ => assert (0 < a * b) by (apply Rmult_lt_0_compat; assumption) end
  end.

(** [Rabs], [Rmax], [Rmin] split into their cases, roots nonnegative. *)
Ltac pe_piece_split :=
  unfold Rmax, Rmin, Rabs in *;
  repeat match goal with
  | |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b)
  | |- context [Rcase_abs ?x] => destruct (Rcase_abs x)
  | |- context [sqrt ?x] =>
      lazymatch goal with _ : 0 <= sqrt x |- _ => fail | _ => pose proof (sqrt_pos x) end
  end.

Ltac pe_case_close :=
  first [ solve [pe_zlia] | solve [lra] | solve [pe_zfacts; lra] | solve [field; lra]
        | solve [pe_piece_split; lra]
        | solve [pe_zfacts; nra] | solve [pe_zfacts; pe_rinv; nra]
        | solve [pe_rbase; first [ reflexivity | field; lra | lra ]]
        | solve [pe_rbase; pe_rinv; nra]
        | solve [rewrite ?rpow_opp; field; repeat split; first [ apply rpow_neq_0 | lra ]]
        | solve [pe_pos_facts; pe_rinv; pe_pos_facts; pe_prod_hints; nra] ].

Ltac pe_cases := pe_split; pe_dec; pe_split.

(** Merging before the split: [pe_same_arg a b] replaces the term [a] of the goal by [b],
    with a proof that the two [Sem] terms are equal under the hypotheses ([pe_same_value]:
    every decision split, a branch where both are undefined by [reflexivity], a branch where
    both are defined by [field], each denominator nonzero by a hypothesis or [lra]).  A branch
    where one side is defined and the other is not, or a denominator not known to be nonzero,
    leaves a goal, and the merge fails: the goal is then as it was.  The case split scripts
    propose merges of arguments equal as rational functions (case_scripts.py), so that one
    decision covers both; this tactic decides whether they are equal. *)
Ltac pe_same_value :=
  pe_dec; first [ reflexivity
                | f_equal; first [ reflexivity | field; repeat split; first [ assumption | lra ] ] ].

Ltac pe_same_arg a b := replace a with b by (solve [pe_same_value]).
